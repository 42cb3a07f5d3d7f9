import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import { startSimulator } from '@observation-service/simulator';
import { afterEach, expect, test, vi } from 'vitest';
import { activateTrigger, createEngine, makeNode, triggerType } from './harness/n8n-engine.mts';
import { eventually, tokenCredential } from './harness/simulator-credentials.mts';

// n8n at log level debug, where the trigger's retries are written (set before n8n's Logger is
// made: below its level n8n fixes each method to a no-op that cannot be watched).
vi.hoisted(() => {
  process.env.N8N_LOG_LEVEL = 'debug';
});

// What the Observation Trigger writes to n8n's log. n8n-core hands a node the instance's Logger
// from its DI container; the same container, reached through n8n-core's own dependencies, lets
// the test read what was logged (no n8n part is replaced).
const fromCore = createRequire(createRequire(import.meta.url).resolve('n8n-core'));
const { Container } = fromCore('@n8n/di') as { Container: { get<T>(type: unknown): T } };
const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };
const logger = Container.get<{ warn(message: string): void; debug(message: string): void }>(Logger);

afterEach(() => {
  vi.restoreAllMocks();
});

test('a trigger that cannot connect logs why once, naming the Service URL field, however often it retries; each retry only at debug level', async () => {
  // A port that drops every request as it comes: each realtime attempt (an upgrade request for
  // the realtime path) is counted here.
  let attempts = 0;
  const dropper = createServer((socket) => {
    socket.once('data', (chunk) => {
      if (/^GET \S*\/events\/realtime\//.test(chunk.toString('latin1'))) attempts++;
      socket.destroy();
    });
  });
  await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
  const sim = await startSimulator({ port: 0, seed: 3 });
  const credential = {
    ...tokenCredential(sim),
    url: `http://127.0.0.1:${(dropper.address() as AddressInfo).port}`,
  };
  await sim.stop();
  const warnings: string[] = [];
  vi.spyOn(logger, 'warn').mockImplementation((message: string) => void warnings.push(message));
  const debug: string[] = [];
  vi.spyOn(logger, 'debug').mockImplementation((message: string) => void debug.push(message));
  const trigger = await activateTrigger(
    await createEngine(credential),
    makeNode(triggerType, { tasks: 'all' }, 'Observation Trigger'),
  );
  try {
    // Several realtime attempts failed: the warning is still the one.
    await eventually(() => attempts >= 3, 60_000);
    const told = warnings.filter((message) => message.startsWith('Observation Trigger:'));
    expect(told, JSON.stringify(warnings)).toHaveLength(1);
    expect(told[0]).toMatch(
      /^Observation Trigger: cannot reach the service( \(E[A-Z]+\))? \(.+\)\. Check the Service URL in the Observation API credential \(and its WebSocket URL, if set\) and that the service is running; the trigger keeps trying\.$/,
    );
    // Each retry at debug level, numbered, with why the try before it failed (core's status).
    const retries = debug.filter((message) => message.startsWith('Observation Trigger:'));
    expect(retries.length, JSON.stringify(debug)).toBeGreaterThanOrEqual(2);
    for (const [k, message] of retries.entries())
      expect(message).toMatch(new RegExp(`^Observation Trigger: connecting \\(attempt ${k + 1}\\): .+`));
    // Nothing final: n8n keeps the workflow active and the trigger keeps trying.
    expect(trigger.errors).toEqual([]);
  } finally {
    await trigger.close();
    await new Promise((resolve) => dropper.close(resolve));
  }
});
