import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  actionType,
  activateTrigger,
  createEngine,
  makeNode,
  runNode,
  testCredential,
  triggerType,
} from './harness/n8n-engine.mts';
import { eventually, tokenCredential } from './harness/simulator-credentials.mts';
import { startSelfSignedProxy, type TlsProxy } from './harness/tls-proxy.mts';

let sim: Simulator;
let proxy: TlsProxy;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 13, historySize: 20 });
  proxy = await startSelfSignedProxy(sim.port);
});
afterAll(async () => {
  await proxy.close();
  await sim.stop();
});

const overTls = (allowSelfSigned: boolean) => tokenCredential(sim, { url: proxy.siteUrl, allowSelfSigned });

test('by default a self-signed certificate is refused, with the reason', async () => {
  const engine = await createEngine(overTls(false));
  const { error } = await runNode(
    engine,
    makeNode(actionType, { resource: 'task', operation: 'getMany', limit: 1 }),
  );
  const details = [error?.message, ...((error as { messages?: string[] } | undefined)?.messages ?? [])].join(
    ' ',
  );
  expect(details).toMatch(/self[- ]signed|certificate/i);
});

test('"Allow Self-Signed Certificates" lets the action node read over https', async () => {
  const engine = await createEngine(overTls(true));
  const { error, items } = await runNode(
    engine,
    makeNode(actionType, { resource: 'task', operation: 'getMany', limit: 2 }),
  );
  expect(error).toBeUndefined();
  expect(items).toHaveLength(2);
});

test('"Allow Self-Signed Certificates" lets the trigger subscribe over wss', async () => {
  const engine = await createEngine(overTls(true));
  const trigger = await activateTrigger(
    engine,
    makeNode(triggerType, { tasks: 'all' }, 'Observation Trigger'),
  );
  try {
    await eventually(() => sim.control.stats().openSockets === 1);
    for (let round = 0; trigger.emitted.length === 0; round++) {
      if (round > 100) throw new Error('no event arrived over wss');
      await sim.control.emit(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(trigger.errors).toEqual([]);
  } finally {
    await trigger.close();
  }
  await eventually(() => sim.control.stats().openSockets === 0);
});

test('the credential test verifies certificates and says why it cannot skip them', async () => {
  const engine = await createEngine(overTls(true));
  const result = await testCredential(engine, actionType, overTls(true));
  expect(result.status).toBe('Error');
  expect(result.message).toMatch(/certificate/i);
  expect(result.message).toMatch(/Allow Self-Signed Certificates/);
});
