import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { actionType, createEngine, type Engine, testCredential, triggerType } from './harness/n8n-engine.mts';
import { loginCredential, tokenCredential } from './harness/simulator-credentials.mts';

let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5, historySize: 10 });
  engine = await createEngine(tokenCredential(sim));
});
afterAll(async () => {
  await sim.stop();
});

test('a working token and service id pass, from either node', async () => {
  for (const type of [actionType, triggerType]) {
    expect(await testCredential(engine, type, tokenCredential(sim))).toEqual({
      status: 'OK',
      message: 'Connection successful',
    });
  }
});

test('email and password pass, and the API URL works as well as the site URL', async () => {
  expect((await testCredential(engine, actionType, loginCredential(sim))).status).toBe('OK');
  expect((await testCredential(engine, actionType, tokenCredential(sim, { url: sim.apiUrl }))).status).toBe(
    'OK',
  );
});

test('a wrong token fails with a readable message that does not contain it', async () => {
  const result = await testCredential(
    engine,
    actionType,
    tokenCredential(sim, { accessToken: 'wrong-token-777' }),
  );
  expect(result.status).toBe('Error');
  expect(result.message).toMatch(/401/);
  expect(result.message).not.toContain('wrong-token-777');
});

test('a wrong password fails without showing it', async () => {
  const result = await testCredential(
    engine,
    actionType,
    loginCredential(sim, { password: 'not-the-password-42' }),
  );
  expect(result.status).toBe('Error');
  expect(result.message).not.toContain('not-the-password-42');
});

test('a wrong service id fails', async () => {
  const result = await testCredential(
    engine,
    actionType,
    tokenCredential(sim, { serviceId: 'another-workspace' }),
  );
  expect(result.status).toBe('Error');
  expect(result.message).toMatch(/40[13]/);
});

test('an invalid URL is named in the message', async () => {
  const result = await testCredential(engine, actionType, tokenCredential(sim, { url: 'not a url' }));
  expect(result.status).toBe('Error');
  expect(result.message).toMatch(/url/i);
});

test('a service that is down fails with the network reason', async () => {
  const gone = await startSimulator({ port: 0 });
  const credential = tokenCredential(gone);
  await gone.stop();
  const result = await testCredential(engine, actionType, credential);
  expect(result.status).toBe('Error');
  expect(result.message).toMatch(/ECONNREFUSED/);
});
