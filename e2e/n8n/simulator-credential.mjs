// The `observationApi` credential for a simulator, as plain data: `n8n import:credentials`
// encrypts it with the instance's key, as it does a user's export. One copy for the e2e tests and
// the n8n demo.
export function simulatorCredential(sim, id) {
  return {
    id,
    name: 'Observation account',
    type: 'observationApi',
    data: {
      url: sim.siteUrl,
      serviceId: sim.serviceId,
      authentication: 'emailPassword',
      email: sim.credentials.email,
      password: sim.credentials.password,
      form: 'auto',
    },
  };
}
