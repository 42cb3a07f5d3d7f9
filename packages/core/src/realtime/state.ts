import type { StreamStatus } from './event-stream.js';
import type { SubscriptionState } from './types.js';

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
