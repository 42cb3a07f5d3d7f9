import type { ClientCore } from '../context/client-core.js';
import { AuthError } from '../errors/auth-error.js';
import { redactUrl } from '../errors/redact-url.js';
import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';

/**
 * Resolves a media URL (relative ones against the site) and checks it may receive the token:
 * only the service's own origin and the configured trusted origins do.
 */
export function checkMediaUrl(core: ClientCore, url: unknown, parameter = 'url'): URL {
  const allowedShape = "an http(s) media URL such as an event's image or video URL";
  if (typeof url !== 'string' || url.trim() === '')
    throw new ValidationError(parameter, describeValue(url), allowedShape);
  let parsed: URL;
  try {
    parsed = new URL(url.trim(), `${core.addresses.siteUrl}/`);
  } catch {
    throw new ValidationError(parameter, JSON.stringify(redactUrl(url).slice(0, 80)), allowedShape);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ValidationError(parameter, `a ${parsed.protocol} URL`, allowedShape);
  }
  if (!core.mediaOrigins.has(parsed.origin)) {
    // Signing a foreign URL would hand the access token to another host.
    throw new ValidationError(
      parameter,
      `a URL on ${parsed.origin}, which is neither the service's origin nor trusted`,
      // In the words of every host's settings (n8n "Trusted Media Hosts", Node-RED "Media hosts").
      `a URL on ${[...core.mediaOrigins].join(' or ')} (to allow another host such as a CDN, add its origin to the trusted media hosts)`,
    );
  }
  return parsed;
}

function sign(url: URL, token: string): string {
  const signed = new URL(url.toString());
  signed.searchParams.set('auth_token', token);
  return signed.toString();
}

/** Synchronous signing with the cached token; with email/password auth a login must have happened. */
export function signedUrl(core: ClientCore, url: string): string {
  core.assertOpen();
  const checked = checkMediaUrl(core, url);
  const token = core.tokens.current();
  if (token === undefined) {
    throw new AuthError(
      'No access token yet: the client logs in on its first request. Use `await client.media.signUrl(url)` to log in and sign.',
    );
  }
  return sign(checked, token);
}

/** Signing that logs in first when needed. */
export async function signUrl(core: ClientCore, url: string, signal?: AbortSignal): Promise<string> {
  core.assertOpen();
  const checked = checkMediaUrl(core, url);
  const token = await core.tokens.get(signal ? { signal } : {});
  return sign(checked, token);
}
