import type { ClientOptions } from '@observation-service/core';

/** Settings of the `observation-server` config node as the editor saves them in flows.json. */
export interface ServerConfig {
  url?: string;
  wsUrl?: string;
  serviceId?: string;
  form?: string;
  trustedMediaHosts?: string;
  /** `token` (access token) or `login` (email and password, core logs in and refreshes). */
  authType?: string;
  /** Seconds without traffic before a realtime connection counts as dead (core's heartbeat). */
  keepAliveSeconds?: string | number;
}

/** Core's heartbeat period from the config node's keep-alive field; unset or invalid keeps core's default. */
export function heartbeatMs(config: ServerConfig): number | undefined {
  const seconds = Number(config.keepAliveSeconds);
  return config.keepAliveSeconds !== '' && Number.isFinite(seconds) && seconds > 0
    ? seconds * 1000
    : undefined;
}

/** Secrets of the config node: kept in Node-RED's encrypted credentials file, never in flows.json. */
export interface ServerCredentials {
  token: string;
  email: string;
  password: string;
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * Maps the config node's fields onto core's client options, nothing more: core validates the
 * URL, form and credentials and names the field in its error when something is wrong.
 */
export function toClientOptions(
  config: ServerConfig,
  credentials: Partial<ServerCredentials>,
): ClientOptions {
  const auth =
    config.authType === 'login'
      ? { email: text(credentials.email) ?? '', password: credentials.password ?? '' }
      : { token: text(credentials.token) ?? '' };
  const trusted = (config.trustedMediaHosts ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const form = text(config.form);
  return {
    url: text(config.url) ?? '',
    ...(text(config.wsUrl) ? { wsUrl: text(config.wsUrl) } : {}),
    ...(text(config.serviceId) ? { serviceId: text(config.serviceId) } : {}),
    ...(form ? { form: form as ClientOptions['form'] } : {}),
    ...(trusted.length > 0 ? { trustedMediaOrigins: trusted } : {}),
    auth,
  };
}
