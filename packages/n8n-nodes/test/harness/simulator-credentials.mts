import type { Simulator } from '@observation-service/simulator';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** The `observationApi` credential as a user would fill it in for this simulator. */
export function tokenCredential(
  sim: Simulator,
  overrides: ICredentialDataDecryptedObject = {},
): ICredentialDataDecryptedObject {
  return {
    url: sim.siteUrl,
    wsUrl: '',
    serviceId: sim.serviceId,
    authentication: 'accessToken',
    accessToken: sim.token,
    form: 'auto',
    trustedMediaHosts: '',
    allowSelfSigned: false,
    ...overrides,
  };
}

export function loginCredential(
  sim: Simulator,
  overrides: ICredentialDataDecryptedObject = {},
): ICredentialDataDecryptedObject {
  return tokenCredential(sim, {
    authentication: 'emailPassword',
    accessToken: '',
    email: sim.credentials.email,
    password: sim.credentials.password,
    ...overrides,
  });
}

/** Polls until `check` holds (socket counts settle asynchronously after a close). */
export async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
