import type { ConnectionStatus } from './connection.js';
import type { SubscriptionState } from './types.js';

/** Where one socket is: its connection's status, or `backfilling` while it catches up. */
export type StreamStatus = ConnectionStatus | 'backfilling';

/**
 * One state for a subscription made of several sockets (basic form: one per task): the most
 * troubled socket decides, so a host never shows `open` while a task is down.
 */
export function aggregateState(statuses: readonly StreamStatus[], listed: boolean): SubscriptionState {
  if (!listed) return 'connecting';
  if (statuses.includes('reconnecting')) return 'reconnecting';
  if (statuses.includes('connecting')) return 'connecting';
  if (statuses.includes('backfilling')) return 'backfilling';
  return 'open';
}
