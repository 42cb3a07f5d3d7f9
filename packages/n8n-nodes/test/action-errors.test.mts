import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { actionType, createEngine, type Engine, makeNode, runNode } from './harness/n8n-engine.mts';
import { tokenCredential } from './harness/simulator-credentials.mts';

let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11, historySize: 50 });
  engine = await createEngine(tokenCredential(sim));
});
afterAll(async () => {
  await sim.stop();
});

const taskById = (value: string) => ({ __rl: true, mode: 'id', value });

test('n8n itself refuses a literal malformed id typed into the locator', async () => {
  await expect(
    runNode(engine, makeNode(actionType, { resource: 'task', operation: 'get', task: taskById('abc') })),
  ).rejects.toThrow(/Task: enter its ID as a whole number, e.g. 12/);
});

test('a malformed id is refused before any request, naming the field and the value', async () => {
  const before = sim.control.stats().requests;
  const { error, items } = await runNode(
    engine,
    // Typed as an expression: n8n's own locator check (digits only) would stop a literal earlier.
    makeNode(actionType, { resource: 'task', operation: 'get', task: taskById('={{ "12; drop" }}') }),
  );
  expect(items).toEqual([]);
  expect(error?.name).toBe('NodeOperationError');
  expect(error?.message).toBe('Invalid Task: got "12; drop"; expected a positive whole number (1, 2, 3, …)');
  expect(sim.control.stats().requests).toBe(before);
});

test('an unknown id surfaces as an API error with the status and the service message', async () => {
  const { error } = await runNode(
    engine,
    makeNode(actionType, { resource: 'task', operation: 'get', task: taskById('999999') }),
  );
  expect(error?.name).toBe('NodeApiError');
  expect(error?.httpCode).toBe('404');
  expect(error?.message).toMatch(/HTTP 404/);
  expect(error?.message).toMatch(/\/tasks\/999999/);
});

test('a refused token (401) is an API error that never shows the token', async () => {
  const badToken = 'not-a-valid-token-abc123';
  const badEngine = await createEngine(tokenCredential(sim, { accessToken: badToken }));
  const { error } = await runNode(
    badEngine,
    makeNode(actionType, { resource: 'location', operation: 'getMany', limit: 1 }),
  );
  expect(error?.name).toBe('NodeApiError');
  expect(error?.httpCode).toBe('401');
  expect(error?.message).toMatch(/401/);
  expect(JSON.stringify({ message: error?.message, description: error?.description })).not.toContain(
    badToken,
  );
});

test('a service that is down gives a readable network error', async () => {
  const gone = await startSimulator({ port: 0, seed: 11 });
  const credential = tokenCredential(gone);
  await gone.stop();
  const downEngine = await createEngine(credential);
  const { error } = await runNode(
    downEngine,
    makeNode(actionType, { resource: 'location', operation: 'getMany', limit: 1 }),
  );
  expect(error?.message).toBe('The service refused the connection - perhaps it is offline');
  const details = (error as { messages?: string[] } | undefined)?.messages ?? [];
  expect(details[0]).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/apiserver\/locations\S* failed: ECONNREFUSED/);
  // n8n's wording names neither the address nor the field: the description names both.
  expect(error?.description).toBe(
    `Nothing answered at ${gone.siteUrl}. Check the Service URL in the Observation API credential (host and port) and that the service is running there.`,
  );
});

test('a media URL where nothing answers names the media field, not the credential', async () => {
  const gone = await startSimulator({ port: 0, seed: 12 });
  const url = `${gone.apiUrl}/media/snapshots/1.png`;
  await gone.stop();
  const mediaEngine = await createEngine(tokenCredential(sim, { trustedMediaHosts: gone.siteUrl }));
  const { error } = await runNode(
    mediaEngine,
    makeNode(actionType, { resource: 'media', operation: 'downloadSnapshot', url, snapshotWaitSeconds: 0 }),
  );
  expect(error?.message).toBe('The service refused the connection - perhaps it is offline');
  expect(error?.description).toBe(
    `Nothing answered at ${gone.siteUrl}. Check the Snapshot URL (host and port) and that the service is running there.`,
  );
});

test('a passing 503 is retried by core and the node succeeds', async () => {
  sim.control.failNext(1, 503);
  const { error, items } = await runNode(
    engine,
    makeNode(actionType, { resource: 'location', operation: 'getMany', limit: 1 }),
  );
  expect(error).toBeUndefined();
  expect(items).toHaveLength(1);
});

test('with "On Error: Continue" each failing item becomes an error item paired with its input', async () => {
  const task = sim.world.tasks[0];
  if (!task) throw new Error('no tasks');
  const node = makeNode(actionType, {
    resource: 'task',
    operation: 'get',
    task: '={{ { __rl: true, mode: "id", value: $json.id } }}',
  });
  node.onError = 'continueRegularOutput';
  const { error, items } = await runNode(engine, node, [
    { json: { id: String(task.id) } },
    { json: { id: '999999' } },
    { json: { id: 'abc' } },
  ]);
  expect(error).toBeUndefined();
  expect(items).toHaveLength(3);
  expect(items[0]?.json.id).toBe(task.id);
  expect(items[0]?.pairedItem).toEqual({ item: 0 });
  expect(items[1]?.json.error).toMatch(/HTTP 404/);
  expect(items[1]?.pairedItem).toEqual({ item: 1 });
  expect(items[2]?.json.error).toBe('Invalid Task: got "abc"; expected a positive whole number (1, 2, 3, …)');
  expect(items[2]?.pairedItem).toEqual({ item: 2 });
});

test('without continue-on-fail the error names the failing item', async () => {
  const node = makeNode(actionType, {
    resource: 'task',
    operation: 'get',
    task: '={{ { __rl: true, mode: "id", value: $json.id } }}',
  });
  const { error } = await runNode(engine, node, [{ json: { id: '1' } }, { json: { id: 'x' } }]);
  expect(error?.message).toMatch(/Invalid Task/);
  expect((error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex).toBe(1);
});
