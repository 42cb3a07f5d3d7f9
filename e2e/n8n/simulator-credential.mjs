import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

/**
 * The credential written as `n8n import:credentials` reads it (`dir`/credentials.json, plain
 * data: n8n encrypts it with the instance key, as for a user's export). Returns it and the file.
 */
export function writeSimulatorCredential(sim, dir, id = 'obsCredential01') {
  const credential = simulatorCredential(sim, id);
  const file = join(dir, 'credentials.json');
  writeFileSync(file, JSON.stringify([credential]));
  return { credential, file };
}
