import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { credentialStore } from './harness/credential-store.mts';
import {
  actionType,
  activateTrigger,
  createEngine,
  listSearch,
  makeNode,
  runNode,
  triggerType,
} from './harness/n8n-engine.mts';
import { eventually, loginCredential, tokenCredential } from './harness/simulator-credentials.mts';

// With email and password, the token lives in n8n's credential store (the credential's hidden
// sessionToken): two engines sharing one store play two n8n processes (a main and a queue-mode
// worker) sharing one credential in n8n's database. The real cluster is in e2e/n8n/queue-mode.

let sim: Simulator;

beforeEach(async () => {
  sim = await startSimulator({ port: 0, seed: 31, historySize: 20 });
});
afterEach(async () => {
  await sim.stop();
});

const logins = () => sim.control.stats().logins;
const readTasks = () => makeNode(actionType, { resource: 'task', operation: 'getMany', limit: 2 });

test('two processes share one login; a refused token is renewed once and the other process picks it up', async () => {
  const store = credentialStore(loginCredential(sim));
  const main = await createEngine(store);
  const worker = await createEngine(store);

  // The editor on the main process logs in first; n8n saves the token with the credential.
  const listed = await listSearch(main, readTasks(), 'searchTasks');
  expect(listed.results.length).toBeGreaterThan(0);
  expect(logins()).toBe(1);
  expect(store.saves).toBe(1);
  const first = store.data.sessionToken;
  expect(typeof first).toBe('string');

  // The worker's executions, its snapshot download (token in the media URL) and the main's
  // realtime trigger (token in the socket URL) all use it.
  for (let i = 0; i < 3; i++) expect((await runNode(worker, readTasks())).error).toBeUndefined();
  const [event] = (
    await runNode(worker, makeNode(actionType, { resource: 'event', operation: 'getMany', limit: 1 }))
  ).items;
  const media = await runNode(
    worker,
    makeNode(actionType, {
      resource: 'media',
      operation: 'downloadSnapshot',
      url: '={{ $json.imageUrl }}',
      binaryPropertyName: 'snapshot',
    }),
    event ? [event] : [],
  );
  expect(media.error).toBeUndefined();
  expect(media.items[0]?.binary?.snapshot?.mimeType).toMatch(/^image\//);
  const requestsBefore = sim.control.stats().requests;
  const trigger = await activateTrigger(main, makeNode(triggerType, { tasks: 'all' }, 'Observation Trigger'));
  try {
    await eventually(() => sim.control.stats().openSockets === 1);
    // A fresh start reads history three times: its start second before the socket, what came
    // while it opened, and that again once history may have caught up (core's historyLagMs). The
    // last comes a moment after the socket opened: refusing the token before it would make the
    // main renew on its own, which is not what this test is about.
    await eventually(() => sim.control.stats().requests >= requestsBefore + 3, 30_000);
    expect(logins()).toBe(1);

    // The service stops accepting the token: five executions at once on the worker renew it once.
    sim.control.expireTokens();
    const runs = await Promise.all(Array.from({ length: 5 }, () => runNode(worker, readTasks())));
    expect(runs.map((run) => run.error?.message)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(logins()).toBe(2);
    expect(store.saves).toBe(2);
    expect(store.data.sessionToken).not.toBe(first);
    // The main finds the renewed token in the store: no login of its own.
    expect((await listSearch(main, readTasks(), 'searchTasks')).results.length).toBeGreaterThan(0);
    expect(logins()).toBe(2);
  } finally {
    await trigger.close();
  }
});

test('a wrong password fails the node with the service reason after one login attempt, and stores nothing', async () => {
  const engine = await createEngine(loginCredential(sim, { password: 'not-the-password-42' }));
  const { error } = await runNode(engine, readTasks());
  expect(error?.message).toBe(
    'The login of the credential "Observation account" failed. The service refused the login (HTTP 401): Incorrect email or password',
  );
  expect(JSON.stringify(error)).not.toContain('not-the-password-42');
  expect(logins()).toBe(1);
  expect(engine.store.saves).toBe(0);
});

test('an access token is used as it is: no login, nothing stored', async () => {
  const engine = await createEngine(tokenCredential(sim));
  expect((await runNode(engine, readTasks())).error).toBeUndefined();
  expect(logins()).toBe(0);
  expect(engine.store.saves).toBe(0);
});

test('a login refused while the trigger streams is reported once, in words naming the credential, and not retried', async () => {
  const store = credentialStore(loginCredential(sim));
  const engine = await createEngine(store);
  const trigger = await activateTrigger(
    engine,
    makeNode(triggerType, { tasks: 'all' }, 'Observation Trigger'),
  );
  try {
    await eventually(() => sim.control.stats().openSockets === 1, 15_000);
    expect(logins()).toBe(1);
    // The password was changed elsewhere, then the day's token expires.
    store.data.password = 'changed-elsewhere-7';
    sim.control.expireTokens();
    sim.control.dropConnections();
    await eventually(() => trigger.errors.length > 0, 30_000);
  } finally {
    await trigger.response?.closeFunction?.();
  }
  // Closed: nothing can report or log in any more, so these counts are final.
  expect(trigger.errors.map((error) => error.message)).toEqual([
    'The login of the credential "Observation account" failed. The service refused the login (HTTP 401): Incorrect email or password',
  ]);
  expect(JSON.stringify(trigger.errors)).not.toContain('changed-elsewhere-7');
  expect(logins()).toBe(2);
});
