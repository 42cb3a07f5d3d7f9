import type { ObservationEvent } from '../../model/observation-event.js';
import type { EventMeta, StateChangeInfo, SubscriptionHandlers, SubscriptionState } from '../types.js';

/** Handlers that record everything, plus waiting helpers for tests. */
export function recorder(onEvent?: (event: ObservationEvent, meta: EventMeta) => void | Promise<void>) {
  const events: ObservationEvent[] = [];
  const sources: EventMeta['source'][] = [];
  const states: { state: SubscriptionState; info: StateChangeInfo }[] = [];
  const errors: Error[] = [];
  const record = (event: ObservationEvent, meta: EventMeta) => {
    events.push(event);
    sources.push(meta.source);
    return onEvent?.(event, meta);
  };
  const handlers: SubscriptionHandlers & Required<Pick<SubscriptionHandlers, 'onEvent'>> = {
    onEvent: record,
    onStateChange(state, info) {
      states.push({ state, info });
    },
    onError(error) {
      errors.push(error);
    },
  };
  return { handlers, onEvent: record, events, sources, states, errors };
}

/** Polls `check` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Record id of an event in either form: the id, or (basic form) the simulator's media URL, which embeds it. */
export function recordIdOf(event: ObservationEvent): number {
  if (event.id !== undefined) return event.id;
  const match = /\/snapshots\/(\d+)\.png/.exec(event.imageUrl ?? '');
  if (!match) throw new Error(`no record id in ${event.imageUrl}`);
  return Number(match[1]);
}
