import { resolveAddresses } from '@observation-service/core';
import { type Simulator, startSimulator } from '@observation-service/simulator';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { credentialStore } from './harness/credential-store.mts';
import { createEngine, type Engine, testCredential } from './harness/n8n-engine.mts';
import { loginCredential, tokenCredential } from './harness/simulator-credentials.mts';

// The credential's own `test` request, run the way n8n's CredentialsTester runs it (RoutingNode,
// httpRequestWithAuthentication, preAuthentication, the test's rules). The e2e runs it in a real n8n.

let sim: Simulator;
let engine: Engine;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5, historySize: 10 });
  engine = await createEngine(tokenCredential(sim));
});
afterEach(() => {
  sim.control.reset();
});
afterAll(async () => {
  await sim.stop();
});

test('a working token and service id pass', async () => {
  expect(await testCredential(engine, tokenCredential(sim))).toEqual({
    status: 'OK',
    message: 'Connection successful',
  });
});

test('email and password pass with one login; the site, API and ws URLs all reach the API', async () => {
  const login = loginCredential(sim);
  const loginEngine = await createEngine(login);
  expect(await testCredential(loginEngine, login)).toEqual({
    status: 'OK',
    message: 'Connection successful',
  });
  expect(sim.control.stats().logins).toBe(1);
  const wsUrl = sim.apiUrl.replace(/^http/, 'ws');
  for (const url of [sim.apiUrl, `${sim.apiUrl}/`, `${wsUrl}/events/realtime/${sim.serviceId}/0?token=x`]) {
    expect((await testCredential(engine, tokenCredential(sim, { url }))).status).toBe('OK');
  }
  expect(resolveAddresses(sim.siteUrl).apiUrl).toBe(sim.apiUrl);
});

test('a wrong token fails with a readable message that does not contain it', async () => {
  const result = await testCredential(engine, tokenCredential(sim, { accessToken: 'wrong-token-777' }));
  expect(result).toEqual({
    status: 'Error',
    message:
      'The service refused the access token (HTTP 401). Check the Access Token, or the Email and Password.',
  });
});

test('a wrong password fails with the service reason, after one login attempt, without showing it', async () => {
  const result = await testCredential(engine, loginCredential(sim, { password: 'not-the-password-42' }));
  expect(result.status).toBe('Error');
  expect(result.message).toBe('The service refused the login (HTTP 401): Incorrect email or password');
  expect(sim.control.stats().logins).toBe(1);
});

test('a Service URL with no login at its path fails naming the Service URL, not the password', async () => {
  const result = await testCredential(engine, loginCredential(sim, { url: `${sim.siteUrl}/wrong/place` }));
  expect(result.status).toBe('Error');
  expect(result.message).toMatch(
    /^No login at http:\/\/\S+\/wrong\/place\S* \(HTTP 404\)\. Check the Service URL\.$/,
  );
  expect(result.message).not.toMatch(/refused the login|password/i);
});

test('a wrong service id fails naming the field', async () => {
  const result = await testCredential(engine, tokenCredential(sim, { serviceId: 'another-workspace' }));
  expect(result.status).toBe('Error');
  expect(result.message).toMatch(/HTTP 403.*Service ID/);
});

test('an address that is not an http(s) or ws(s) URL fails saying what to enter, in both modes', async () => {
  for (const credential of [
    tokenCredential(sim, { url: 'not a url' }),
    loginCredential(sim, { url: 'ftp://host/observ' }),
  ]) {
    const result = await testCredential(engine, credential);
    expect(result.status).toBe('Error');
    expect(result.message).toMatch(
      /^The Service URL is not an http\(s\) or ws\(s\) address: enter the site URL/,
    );
  }
  expect(sim.control.stats().logins).toBe(0);
});

test('a Service URL where no API answers says so', async () => {
  const result = await testCredential(engine, tokenCredential(sim, { url: `${sim.siteUrl}/elsewhere` }));
  expect(result).toEqual({
    status: 'Error',
    message:
      'No Observation API at this address (HTTP 404 for the task list, /tasks under the API URL made from the Service URL). Check the Service URL: the site URL (https://host/observ) or its API URL (…/apiserver).',
  });
});

test('a port nobody listens on fails naming the Service URL, its host and port and what to check, in both modes', async () => {
  const gone = await startSimulator({ port: 0 });
  const credentials = [tokenCredential(gone), loginCredential(gone)];
  await gone.stop();
  for (const credential of credentials) {
    expect(await testCredential(engine, credential)).toEqual({
      status: 'Error',
      message: `Nothing answered at ${gone.siteUrl} (the connection was refused). Check the Service URL (host and port) and that the service is running there.`,
    });
  }
});

test('an access token tested again after a first test still checks the address', async () => {
  // The first test saved the access-token marker in the hidden session token; n8n runs
  // preAuthentication at every test all the same, so a Service URL changed to a dead port is named.
  const credential = tokenCredential(sim);
  const store = credentialStore(credential);
  const tokenEngine = await createEngine(store);
  expect((await testCredential(tokenEngine, store.data)).status).toBe('OK');
  expect(store.data.sessionToken).toBe('access token: no login');
  const gone = await startSimulator({ port: 0 });
  await gone.stop();
  const result = await testCredential(tokenEngine, { ...store.data, url: gone.siteUrl });
  expect(result.message).toMatch(
    /^Nothing answered at http:\/\/127\.0\.0\.1:\d+ \(the connection was refused\)\. Check the Service URL/,
  );
});
