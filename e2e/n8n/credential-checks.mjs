// The credential as n8n itself handles it, through the running n8n's REST API (what the editor
// calls): credentials are saved, then tested (n8n's CredentialsTester runs the credential's own
// test request, logging in through its preAuthentication), as the credential screen does.
import { createServer } from 'node:net';

/** Saves a credential through n8n's REST API and runs n8n's test on it; the test's answer. */
async function saveAndTest(request, base, name, data) {
  const created = await request.post(`${base}/rest/credentials`, {
    data: { name, type: 'observationApi', data },
  });
  if (!created.ok())
    throw new Error(`saving credential "${name}" failed: HTTP ${created.status()} ${await created.text()}`);
  const id = (await created.json())?.data?.id;
  return { id, ...(await testSaved(request, base, id, name, data)) };
}

/** n8n's test of the saved credential `id` with `data` as the credential screen holds it. */
async function testSaved(request, base, id, name, data) {
  const tested = await request.post(`${base}/rest/credentials/test`, {
    data: { credentials: { id, name, type: 'observationApi', data } },
  });
  if (!tested.ok())
    throw new Error(`testing credential "${name}" failed: HTTP ${tested.status()} ${await tested.text()}`);
  const { status, message } = (await tested.json())?.data ?? {};
  return { status, message };
}

/** A local address where nothing listens: a port that was free a moment ago, closed again. */
async function refusedUrl() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/observ`;
}

/**
 * n8n's credential test for a good login, a wrong password, a good and a wrong access token, a
 * Service URL at a port nobody listens on (email and password, an access token, and the good
 * token's credential tested again with that URL). Returns the answers and how many logins the
 * simulator saw for them.
 */
export async function credentialTests(request, base, sim) {
  const site = { url: sim.siteUrl, serviceId: sim.serviceId, form: 'auto' };
  const loginsBefore = sim.control.stats().logins;
  const good = await saveAndTest(request, base, 'Observation (test: good login)', {
    ...site,
    authentication: 'emailPassword',
    email: sim.credentials.email,
    password: sim.credentials.password,
  });
  const wrongPassword = await saveAndTest(request, base, 'Observation (test: wrong password)', {
    ...site,
    authentication: 'emailPassword',
    email: sim.credentials.email,
    password: 'Not-The-Password-913',
  });
  const tokenData = { ...site, authentication: 'accessToken', accessToken: sim.token };
  const goodToken = await saveAndTest(request, base, 'Observation (test: good token)', tokenData);
  const wrongToken = await saveAndTest(request, base, 'Observation (test: wrong token)', {
    ...site,
    authentication: 'accessToken',
    accessToken: 'wrong-token-8812',
  });
  const refused = { ...site, url: await refusedUrl() };
  const refusedLogin = await saveAndTest(request, base, 'Observation (test: refused port, login)', {
    ...refused,
    authentication: 'emailPassword',
    email: sim.credentials.email,
    password: sim.credentials.password,
  });
  const refusedToken = await saveAndTest(request, base, 'Observation (test: refused port, token)', {
    ...refused,
    authentication: 'accessToken',
    accessToken: sim.token,
  });
  // The good token's credential, tested once already (its check is saved with it), with the Service
  // URL changed to the dead port in the credential screen: tested again before it is saved.
  const retestedToken = await testSaved(request, base, goodToken.id, 'Observation (test: good token)', {
    ...tokenData,
    url: refused.url,
  });
  return {
    good,
    wrongPassword,
    goodToken,
    wrongToken,
    refusedUrl: refused.url,
    refusedLogin,
    refusedToken,
    retestedToken,
    logins: sim.control.stats().logins - loginsBefore,
  };
}
