// What the credential needs beyond its fields, kept out of the class so the class reads as n8n's
// own credentials do. No core import here: n8n loads credential files on their own.
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/**
 * The REST base from the Service URL, as an n8n expression over the credential's own fields
 * (`$self`), derived as core's `resolveAddresses` derives it: http(s) or ws(s) → http(s), the host
 * lowercased without its default port, the path up to the first `apiserver` segment, then
 * `/apiserver`. Empty for anything else (core names the problem when a node opens a client).
 * It must never throw: n8n resolves it whenever it loads the credential.
 * test/api-url-expression.test.mts checks it against core.
 */
export const apiUrlExpression =
  '={{ (function (raw) { const m = /^(http|ws)(s?):\\/\\/([^/?#@]*)((?:\\/[^?#]*)?)$/i.exec(String(raw || "").trim().replace(/[?#].*$/, "")); if (!m || m[3] === "") return ""; const secure = m[2] !== ""; const host = m[3].toLowerCase().replace(secure ? /:443$/ : /:80$/, ""); const segments = m[4].split("/").filter((segment) => segment !== ""); const cut = segments.indexOf("apiserver"); const site = cut === -1 ? segments : segments.slice(0, cut); return (secure ? "https://" : "http://") + host + site.map((segment) => "/" + segment).join("") + "/apiserver"; })($self["url"]) }}';

/** A refused or failed login, with the status for the nodes (shared/session-token.ts) to tell the two apart. */
export interface LoginFailure extends Error {
  /** HTTP status of the login's answer; absent when the service was not reached. */
  observationLoginStatus?: number;
}

/** The service's own reason, when it is a plain string: never the body (a 422 echoes the password). */
function reasonOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const { detail, message } = body as { detail?: unknown; message?: unknown };
  const reason = typeof detail === 'string' ? detail : typeof message === 'string' ? message : undefined;
  return reason?.slice(0, 200);
}

/**
 * The error preAuthentication throws. No `status` or `code` on it: n8n's NodeApiError would
 * replace a message carrying one with its generic wording.
 */
export function loginFailure(message: string, status?: number, body?: unknown): LoginFailure {
  const reason = reasonOf(body);
  const error: LoginFailure = new Error(reason ? `${message}: ${reason}` : message);
  if (status !== undefined) error.observationLoginStatus = status;
  return error;
}

/**
 * What preAuthentication saves as the session token of an access-token credential. Nothing logs
 * in with an access token, but n8n runs preAuthentication before each request of the HTTP Request
 * node while this hidden field is empty, and the address check it makes (`nothingAnswered`) would
 * then cost a request each time; with it saved, n8n runs it again only for the credential test and
 * when the service refuses the token. Not a secret, and requests with an access token are signed
 * with the Access Token (after a switch to Email and Password it is refused once, then renewed).
 */
export const accessTokenChecked = 'access token: no login';

/** Network codes for "no HTTP answer at all", in words (the codes themselves stay out of messages). */
const unanswered: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was closed before an answer',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ETIMEDOUT: 'no answer in time',
  ECONNABORTED: 'no answer in time',
};

/** The network code of a failed request (n8n's errors keep the request library's in `cause`). */
function networkCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code in unanswered) return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * For a request to the API that got no answer at all (a port nobody listens on, an unknown host):
 * the failure naming the Service URL, with the host and port it gave and what to check, in the
 * words the nodes use ("Nothing answered at …"). No network code in the message: n8n's NodeApiError
 * would put its own wording ("The service refused the connection - perhaps it is offline") in its
 * place, and n8n's credential test would show the bare code. Undefined for any other failure.
 */
export function nothingAnswered(apiUrl: string, error: unknown): LoginFailure | undefined {
  const code = networkCode(error);
  if (code === undefined) return undefined;
  let where = apiUrl;
  try {
    where = new URL(apiUrl).origin;
  } catch {
    // keep the API URL as derived
  }
  return loginFailure(
    `Nothing answered at ${where} (${unanswered[code]}). Check the Service URL (host and port) and that the service is running there.`,
  );
}

/**
 * The headers every REST call of a deployment needs: the token (the login's with email and
 * password, else the access token) and, in the extended form, the service id. Basic deployments
 * know no service id, so none is sent for an empty one.
 */
export function signingHeaders(credentials: ICredentialDataDecryptedObject): Record<string, string> {
  const token =
    credentials.authentication === 'emailPassword' ? credentials.sessionToken : credentials.accessToken;
  const headers: Record<string, string> = {
    Authorization: `Bearer ${typeof token === 'string' ? token : ''}`,
  };
  const serviceId = typeof credentials.serviceId === 'string' ? credentials.serviceId.trim() : '';
  if (serviceId !== '') headers['X-Service-Id'] = serviceId;
  return headers;
}
