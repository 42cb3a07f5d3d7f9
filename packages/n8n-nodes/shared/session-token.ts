import { AuthError, type TokenRequest } from '@observation-service/core/portable';
import type {
  IExecuteFunctions,
  ILoadOptionsFunctions,
  IPollFunctions,
  ITriggerFunctions,
} from 'n8n-workflow';

/** Every n8n context a node opens a client from. */
export type ClientHost = IExecuteFunctions | ITriggerFunctions | ILoadOptionsFunctions | IPollFunctions;

const credentialType = 'observationApi';

/**
 * Renewals running in this process, by credential: clients that find the token missing or
 * refused at the same time wait for one login (other processes find its result in the store).
 */
const renewals = new Map<string, Promise<void>>();

/** A login refusal as the credential's preAuthentication reports it (see credentials/observation-login.ts). */
function loginStatus(error: unknown): number | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const status = (current as { observationLoginStatus?: unknown }).observationLoginStatus;
    if (typeof status === 'number') return status;
    current = current.cause;
  }
  return undefined;
}

/** The credential as the user named it, for a refused login: which one to fix. */
function credentialName(context: ClientHost): string {
  const name = context.getNode().credentials?.[credentialType]?.name;
  return name ? `"${name}"` : 'of the Observation API';
}

/**
 * Core's errors for what a failed renewal means: a refused login or a token still refused is an
 * AuthError (a trigger shows it and stops retrying); anything else (network, 429, 5xx) stays as
 * it is, so core treats it as passing.
 */
function asCoreError(context: ClientHost, error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  const login = loginStatus(error);
  if (login !== undefined && [400, 401, 403, 422].includes(login)) {
    // No `cause`: n8n's errors can carry the request, and with it the refused token.
    return new AuthError(`The login of the credential ${credentialName(context)} failed. ${message}`, {
      status: login,
    });
  }
  const httpCode = Number((error as { httpCode?: unknown } | null)?.httpCode);
  if (login === undefined && (httpCode === 401 || httpCode === 403)) {
    return new AuthError(`The service refused the renewed token (HTTP ${httpCode}): ${message}`, {
      status: httpCode,
    });
  }
  return error;
}

async function storedToken(context: ClientHost): Promise<string> {
  const data = await context.getCredentials(credentialType);
  return typeof data.sessionToken === 'string' ? data.sessionToken : '';
}

/**
 * Has n8n log in and save the token with the credential: one small read through n8n's own
 * authenticated request, which runs the credential's preAuthentication when the stored token is
 * empty, and again when the service answers 401 to it (a refused or expired token).
 */
async function renew(context: ClientHost, apiUrl: string, skipCertificateCheck: boolean): Promise<void> {
  try {
    await context.helpers.httpRequestWithAuthentication.call(context, credentialType, {
      method: 'GET',
      url: `${apiUrl}/tasks`,
      qs: { limit: 1 },
      json: true,
      skipSslCertificateValidation: skipCertificateCheck,
    });
  } catch (error) {
    throw asCoreError(context, error);
  }
}

/**
 * Core's `auth.getToken` for an email-and-password credential: the token n8n keeps in the
 * credential (its hidden `sessionToken`), so the main process and every queue-mode worker share
 * one login instead of one each. A token core reports refused is renewed through n8n, unless
 * another process has already stored a newer one.
 */
export function credentialTokenSource(
  context: ClientHost,
  apiUrl: string,
  skipCertificateCheck: boolean,
): (request: TokenRequest) => Promise<string> {
  const node = context.getNode();
  const key = node.credentials?.[credentialType]?.id ?? `${node.id}:${apiUrl}`;
  return async ({ rejected }) => {
    const stored = await storedToken(context);
    if (stored !== '' && stored !== rejected) return stored;
    let renewal = renewals.get(key);
    if (renewal === undefined) {
      renewal = renew(context, apiUrl, skipCertificateCheck).finally(() => renewals.delete(key));
      renewals.set(key, renewal);
    }
    await renewal;
    const renewed = await storedToken(context);
    if (renewed === '') {
      throw new AuthError('n8n logged in for the Observation API credential but stored no token');
    }
    return renewed;
  };
}
