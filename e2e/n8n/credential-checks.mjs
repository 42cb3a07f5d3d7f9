// The credential as n8n itself handles it, through the running n8n's REST API (what the editor
// calls): credentials are saved, then tested (n8n's CredentialsTester runs the credential's own
// test request, logging in through its preAuthentication), as the credential screen does.

/** Saves a credential through n8n's REST API and runs n8n's test on it; the test's answer. */
async function saveAndTest(request, base, name, data) {
  const created = await request.post(`${base}/rest/credentials`, {
    data: { name, type: 'observationApi', data },
  });
  if (!created.ok())
    throw new Error(`saving credential "${name}" failed: HTTP ${created.status()} ${await created.text()}`);
  const id = (await created.json())?.data?.id;
  const tested = await request.post(`${base}/rest/credentials/test`, {
    data: { credentials: { id, name, type: 'observationApi', data } },
  });
  if (!tested.ok())
    throw new Error(`testing credential "${name}" failed: HTTP ${tested.status()} ${await tested.text()}`);
  return (await tested.json())?.data;
}

/**
 * n8n's credential test for a good login, a wrong password and a wrong access token. Returns
 * the answers and how many logins the simulator saw for them.
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
  const wrongToken = await saveAndTest(request, base, 'Observation (test: wrong token)', {
    ...site,
    authentication: 'accessToken',
    accessToken: 'wrong-token-8812',
  });
  return { good, wrongPassword, wrongToken, logins: sim.control.stats().logins - loginsBefore };
}
