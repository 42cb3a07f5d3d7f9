import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  actionType,
  activateTrigger,
  createEngine,
  makeNode,
  packageDir,
  runNode,
  testCredential,
  triggerType,
} from './harness/n8n-engine.mts';
import { tokenCredential } from './harness/simulator-credentials.mts';
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

test('"Allow Self-Signed Certificates" cannot reach the trigger\'s wss socket: it refuses to start and says what to do', async () => {
  // The realtime socket is the runtime's WebSocket (n8n Cloud allows no socket library), which
  // takes no TLS options; n8n's request helper honours the option for REST only.
  const engine = await createEngine(overTls(true));
  const failure = await activateTrigger(
    engine,
    makeNode(triggerType, { tasks: 'all' }, 'Observation Trigger'),
  ).then(
    async (trigger) => {
      await trigger.close();
      return undefined;
    },
    (error: unknown) => error as Error,
  );
  expect(failure?.message).toMatch(/Allow Self-Signed Certificates/);
  expect(failure?.message).toMatch(/NODE_EXTRA_CA_CERTS/);
  expect(sim.control.stats().openSockets).toBe(0);
});

test('the workaround works: with the CA in NODE_EXTRA_CA_CERTS the vendored core subscribes over wss', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'obs-ca-'));
  try {
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, proxy.certPem);
    // Asynchronous: the simulator and the TLS front live in this process and must keep serving.
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [
          join(packageDir, 'test', 'harness', 'extra-ca-subscribe.mjs'),
          proxy.siteUrl,
          sim.serviceId,
          sim.token,
        ],
        { cwd: packageDir, env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile }, timeout: 20_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(out.trim()).toBe('open');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the credential test (run by n8n, with the login) honours "Allow Self-Signed Certificates"', async () => {
  const refused = await testCredential(await createEngine(overTls(false)), overTls(false));
  expect(refused.status).toBe('Error');
  expect(refused.message).toMatch(/self[-_ ]signed|certificate/i);
  const allowed = overTls(true);
  expect(await testCredential(await createEngine(allowed), allowed)).toEqual({
    status: 'OK',
    message: 'Connection successful',
  });
  const login = {
    ...allowed,
    authentication: 'emailPassword',
    email: sim.credentials.email,
    password: sim.credentials.password,
  };
  expect((await testCredential(await createEngine(login), login)).status).toBe('OK');
});
