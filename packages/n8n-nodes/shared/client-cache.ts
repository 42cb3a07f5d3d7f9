import { createHash } from 'node:crypto';
import type { ObservationClient } from '@observation-service/core/portable';

/**
 * n8n has no long-lived object per credential (Node-RED's config node plays that part there),
 * and a workflow that runs per event would otherwise log in once per execution, which the
 * service's rate-limited login endpoint does not allow. So clients are kept per credential
 * content, in memory, and reused by later executions and editor calls: core keeps the token and
 * renews it before it expires. A kept client holds no socket or timer (HTTP goes through n8n's
 * helper, per request), so idle ones are simply closed on a later access, without timers.
 */
const idleMs = 10 * 60_000;
const maxEntries = 50;

/** Where a kept client sends its HTTP requests: the helper of the execution that used it last. */
export interface RouteHolder<R> {
  current: R;
}

interface Entry<R> {
  client: ObservationClient;
  route: RouteHolder<R>;
  lastUsed: number;
}

const entries = new Map<string, Entry<unknown>>();

/** A digest of the credential data: the cache never holds the secrets as a key. */
export function credentialKey(data: unknown): string {
  return createHash('sha256').update(JSON.stringify(data)).digest('hex');
}

function evict(now: number): void {
  for (const [key, entry] of entries) {
    if (now - entry.lastUsed > idleMs || entries.size > maxEntries) {
      entries.delete(key);
      void entry.client.close();
    }
  }
}

/**
 * The kept client for `key` (its route now pointing at `route`), or a new one from `create`,
 * kept from now on.
 */
export function cachedClient<R>(
  key: string,
  route: R,
  create: (holder: RouteHolder<R>) => ObservationClient,
): ObservationClient {
  const now = Date.now();
  evict(now);
  const found = entries.get(key) as Entry<R> | undefined;
  if (found) {
    found.lastUsed = now;
    found.route.current = route;
    // Most recently used last, so eviction by size drops the oldest first.
    entries.delete(key);
    entries.set(key, found as Entry<unknown>);
    return found.client;
  }
  const holder: RouteHolder<R> = { current: route };
  const client = create(holder);
  entries.set(key, { client, route: holder, lastUsed: now } as Entry<unknown>);
  return client;
}
