import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';

/**
 * How the client reaches the service: directly (no option, the default), through one HTTP(S)
 * proxy with an optional list of hosts to reach directly, or as the environment says
 * (`'env'`: `HTTPS_PROXY` for https/wss, `HTTP_PROXY` for http/ws, `ALL_PROXY` for either,
 * `NO_PROXY`; lower-case names win, as curl and Node-RED read them).
 */
export type ProxyOption =
  | 'env'
  | {
      /** `http://host:port` or `https://host:port`; `user:password@` for a proxy that asks (Basic). */
      url: string;
      /** Hosts reached directly: `host`, `.domain` / `*.domain`, `host:port`, or `*` for all. */
      noProxy?: string | string[];
    };

/** Which proxy (if any) a request to a URL goes through. */
export interface ProxyRoutes {
  proxyFor(target: URL): URL | undefined;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'ws:': 80, 'https:': 443, 'wss:': 443 };

/**
 * One NO_PROXY entry: a host (a leading `.` or `*.` dropped) that also covers every host under
 * it, as curl and undici's EnvHttpProxyAgent read it, optionally for one port only. Matched
 * here rather than by proxy-from-env, which reads only process.env (not the list of Node-RED's
 * proxy node), and matches a plain name exactly, without its subdomains; undici's matcher is
 * private, and the realtime socket needs the same answer as REST.
 */
interface Exclusion {
  host: string;
  port: number | undefined;
}

function parseNoProxy(list: string | string[] | undefined): Exclusion[] | 'all' {
  const entries = (Array.isArray(list) ? list : (list ?? '').split(/[\s,]+/))
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  if (entries.includes('*')) return 'all';
  return entries.map((entry) => {
    const withPort = /^(.+):(\d+)$/.exec(entry);
    const host = (withPort?.[1] ?? entry).replace(/^\*?\./, '').replace(/^\[|\]$/g, '');
    return { host, port: withPort?.[2] ? Number(withPort[2]) : undefined };
  });
}

function excluded(target: URL, exclusions: Exclusion[] | 'all'): boolean {
  if (exclusions === 'all') return true;
  const host = target.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
  return exclusions.some(
    (rule) =>
      (rule.port === undefined || rule.port === port) &&
      (host === rule.host || host.endsWith(`.${rule.host}`)),
  );
}

/** A proxy URL, checked; its password is never echoed. */
function proxyUrl(value: unknown, parameter: string): URL {
  let url: URL | undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const text = value.trim();
    try {
      // `host:port` without a scheme means an HTTP proxy, as curl takes it.
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
    } catch {
      url = undefined;
    }
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    const shown = typeof value === 'string' ? value.replace(/\/\/[^/@]*@/, '//***@') : value;
    throw new ValidationError(
      parameter,
      describeValue(shown),
      'an http:// or https:// proxy URL with a host',
    );
  }
  return url;
}

function env(name: string, source: Record<string, string | undefined>): string | undefined {
  const value = source[name.toLowerCase()] ?? source[name.toUpperCase()];
  return value?.trim() ? value.trim() : undefined;
}

/**
 * Validates the `proxy` option and returns its routes, or `undefined` when every request goes
 * directly. `'env'` is read once, when the client is created.
 */
export function resolveProxy(
  option: unknown,
  source: Record<string, string | undefined> = process.env,
): ProxyRoutes | undefined {
  if (option === undefined || option === null || option === false) return undefined;
  if (option === 'env') {
    // Read as curl does, which proxy-from-env does not: wss goes by HTTPS_PROXY (not WSS_PROXY),
    // and a proxy without a scheme is an HTTP proxy (not one with the target's scheme).
    const all = env('all_proxy', source);
    const https = env('https_proxy', source) ?? all;
    const http = env('http_proxy', source) ?? all;
    if (!https && !http) return undefined;
    const secure = https ? proxyUrl(https, 'HTTPS_PROXY') : undefined;
    const plain = http ? proxyUrl(http, 'HTTP_PROXY') : undefined;
    const exclusions = parseNoProxy(env('no_proxy', source));
    return {
      proxyFor(target) {
        const proxy = target.protocol === 'https:' || target.protocol === 'wss:' ? secure : plain;
        return proxy && !excluded(target, exclusions) ? proxy : undefined;
      },
    };
  }
  if (typeof option !== 'object' || Array.isArray(option)) {
    throw new ValidationError('proxy', describeValue(option), "'env' or { url, noProxy? }");
  }
  const given = option as { url?: unknown; noProxy?: unknown };
  const url = proxyUrl(given.url, 'proxy.url');
  const noProxy = given.noProxy;
  if (
    noProxy !== undefined &&
    typeof noProxy !== 'string' &&
    !(Array.isArray(noProxy) && noProxy.every((entry) => typeof entry === 'string'))
  ) {
    throw new ValidationError(
      'proxy.noProxy',
      describeValue(noProxy),
      'a comma-separated string or an array of host names',
    );
  }
  const exclusions = parseNoProxy(noProxy as string | string[] | undefined);
  return { proxyFor: (target) => (excluded(target, exclusions) ? undefined : url) };
}

/** `Proxy-Authorization` for a proxy URL with credentials (Basic), or undefined. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const pair = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}
