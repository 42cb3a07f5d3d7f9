import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import { startSimulator } from '@observation-service/simulator';
import { expect, test } from 'vitest';
import { activateTrigger, createEngine, makeNode, triggerType } from './harness/n8n-engine.mts';
import { eventually, tokenCredential } from './harness/simulator-credentials.mts';

// What the Observation Trigger writes to n8n's log. n8n-core hands a node the instance's Logger
// from its DI container (read when the node's context first logs); the same container, reached
// through n8n-core's own dependencies, lets the test read what was logged. The node gets n8n's own
// Logger with its warn and debug lines recorded: below its level n8n fixes each
// method to a no-op that cannot be watched, and the Logger is made once per worker (the n8n unit
// tests share a module graph), so the level cannot be set here.
const fromCore = createRequire(createRequire(import.meta.url).resolve('n8n-core'));
const { Container } = fromCore('@n8n/di') as {
  Container: { get<T>(type: unknown): T; set(type: unknown, value: unknown): void };
};
const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };

/** n8n's Logger, its warn and debug lines recorded (and not printed), everything else its own. */
function recordedLogger() {
  const n8nLogger = Container.get<object>(Logger);
  const lines = { warn: [] as string[], debug: [] as string[] };
  // n8n's Logger is the prototype: its own fixed no-ops are shadowed, not changed.
  const recording = Object.create(n8nLogger, {
    warn: { value: (message: string) => void lines.warn.push(message) },
    debug: { value: (message: string) => void lines.debug.push(message) },
  });
  Container.set(Logger, recording);
  return { lines, restore: () => Container.set(Logger, n8nLogger) };
}

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
  const recorded = recordedLogger();
  const { warn: warnings, debug } = recorded.lines;
  // Put back even when the activation fails: the next files of this worker get n8n's Logger.
  const trigger = await activateTrigger(
    await createEngine(credential),
    makeNode(triggerType, { tasks: 'all' }, 'Observation Trigger'),
  ).catch((error: unknown) => {
    recorded.restore();
    throw error;
  });
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
    recorded.restore();
    await new Promise((resolve) => dropper.close(resolve));
  }
});
