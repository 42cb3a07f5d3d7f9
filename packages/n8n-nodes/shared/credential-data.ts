import type { AuthOptions, ClientOptions, Logger, TokenRequest } from '@observation-service/core/portable';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** The fields of the `observationApi` credential, as n8n hands them to a node. */
export interface ObservationCredentialData {
  url?: string;
  wsUrl?: string;
  serviceId?: string;
  authentication?: 'accessToken' | 'emailPassword';
  accessToken?: string;
  email?: string;
  password?: string;
  /** The login token n8n keeps with the credential (preAuthentication fills it). */
  sessionToken?: string;
  form?: 'auto' | 'basic' | 'extended';
  trustedMediaHosts?: string;
  allowSelfSigned?: boolean;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Maps the credential form onto core's client options. No checks of its own: core validates
 * every value and names the field in its error (so messages are the same in every host). With
 * email and password, `getToken` (n8n's credential store) supplies the token when given; without
 * it core logs in itself.
 */
export function toClientOptions(
  data: ICredentialDataDecryptedObject,
  logger?: Partial<Logger>,
  getToken?: (request: TokenRequest) => Promise<string>,
): ClientOptions {
  const credential = data as ObservationCredentialData;
  let auth: AuthOptions = { token: credential.accessToken ?? '' };
  if (credential.authentication === 'emailPassword') {
    auth = getToken ? { getToken } : { email: credential.email ?? '', password: credential.password ?? '' };
  }
  const trusted = (credential.trustedMediaHosts ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return {
    url: credential.url ?? '',
    wsUrl: text(credential.wsUrl),
    serviceId: text(credential.serviceId),
    form: credential.form ?? 'auto',
    auth,
    trustedMediaOrigins: trusted.length > 0 ? trusted : undefined,
    tls: credential.allowSelfSigned === true ? { rejectUnauthorized: false } : undefined,
    logger,
  };
}
