import { createRequire } from 'node:module';
import { startSimulator } from '@observation-service/simulator';
import { afterEach, expect, test, vi } from 'vitest';
import { activateTrigger, createEngine, makeNode, triggerType } from './harness/n8n-engine.mts';
import { eventually, tokenCredential } from './harness/simulator-credentials.mts';

// What the Observation Trigger writes to n8n's log. n8n-core hands a node the instance's Logger
// from its DI container; the same container, reached through n8n-core's own dependencies, lets
// the test read what was logged (no n8n part is replaced).
const fromCore = createRequire(createRequire(import.meta.url).resolve('n8n-core'));
const { Container } = fromCore('@n8n/di') as { Container: { get<T>(type: unknown): T } };
const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };
const logger = Container.get<{ warn(message: string): void }>(Logger);

afterEach(() => {
  vi.restoreAllMocks();
});

test('a trigger that cannot connect at all logs why at every attempt, naming the Service URL field', async () => {
  const gone = await startSimulator({ port: 0, seed: 3 });
  const credential = tokenCredential(gone);
  await gone.stop();
  const warnings: string[] = [];
  vi.spyOn(logger, 'warn').mockImplementation((message: string) => void warnings.push(message));
  const trigger = await activateTrigger(
    await createEngine(credential),
    makeNode(triggerType, { tasks: 'all' }, 'Observation Trigger'),
  );
  try {
    await eventually(() => warnings.some((message) => message.includes('cannot connect')), 30_000);
    const [first] = warnings.filter((message) => message.includes('cannot connect'));
    expect(first).toMatch(
      /^Observation Trigger: cannot connect to the service \(attempt 1\): .+\. Check the Service URL in the Observation API credential \(and its WebSocket URL, if set\) and that the service is running; the trigger keeps trying\.$/,
    );
    // Nothing final: n8n keeps the workflow active and the trigger keeps trying.
    expect(trigger.errors).toEqual([]);
  } finally {
    await trigger.close();
  }
});
