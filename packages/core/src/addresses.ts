import { redactUrl } from './errors/redact-url.js';
import { ValidationError } from './errors/validation-error.js';

/** The three addresses of one deployment. None ends with a slash. */
export interface ServiceAddresses {
  /** What a browser shows, e.g. `https://host/observ`. Media URLs usually live here. */
  siteUrl: string;
  /** REST base, `siteUrl + /apiserver`. */
  apiUrl: string;
  /** WebSocket base, the `ws`/`wss` twin of `apiUrl`; realtime paths hang under it. */
  wsUrl: string;
}

const allowedUrl =
  'an http(s) or ws(s) address of the service: the site ("https://host/observ"), the API ("https://host/observ/apiserver") or the WebSocket address';

interface SplitUrl {
  secure: boolean;
  host: string;
  sitePath: string;
}

function split(input: string, parameter: string): SplitUrl {
  let parsed: URL;
  try {
    parsed = new URL(input.trim());
  } catch {
    throw new ValidationError(parameter, JSON.stringify(redactUrl(input).slice(0, 80)), allowedUrl);
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  if (!['http', 'https', 'ws', 'wss'].includes(scheme)) {
    throw new ValidationError(parameter, `an address with scheme ${JSON.stringify(scheme)}`, allowedUrl);
  }
  if (parsed.username || parsed.password) {
    throw new ValidationError(
      parameter,
      'an address with user credentials in it (hidden)',
      `${allowedUrl}, without a user name or password in it (sign in with the token, or the email and password, instead)`,
    );
  }
  // Everything from the `/apiserver` segment on (REST paths, realtime paths) is not part of the site.
  const segments = parsed.pathname.split('/').filter((s) => s !== '');
  const apiIndex = segments.indexOf('apiserver');
  const siteSegments = apiIndex === -1 ? segments : segments.slice(0, apiIndex);
  const sitePath = siteSegments.length === 0 ? '' : `/${siteSegments.join('/')}`;
  const secure = scheme === 'https' || scheme === 'wss';
  return { secure, host: parsed.host, sitePath };
}

/**
 * Derives site, API and WebSocket addresses from whichever one a user pasted. Query strings and
 * anything after `/apiserver` are dropped. `wsUrl` overrides the WebSocket address only (for
 * deployments that serve WebSockets from another host or port).
 */
export function resolveAddresses(url: string, wsUrl?: string): ServiceAddresses {
  if (typeof url !== 'string') throw new ValidationError('url', 'a non-string value', allowedUrl);
  const main = split(url, 'url');
  const siteUrl = `${main.secure ? 'https' : 'http'}://${main.host}${main.sitePath}`;
  const apiUrl = `${siteUrl}/apiserver`;
  let ws = `${main.secure ? 'wss' : 'ws'}://${main.host}${main.sitePath}/apiserver`;
  if (wsUrl !== undefined) {
    if (typeof wsUrl !== 'string') throw new ValidationError('wsUrl', 'a non-string value', allowedUrl);
    const override = split(wsUrl, 'wsUrl');
    ws = `${override.secure ? 'wss' : 'ws'}://${override.host}${override.sitePath}/apiserver`;
  }
  return { siteUrl, apiUrl, wsUrl: ws };
}
