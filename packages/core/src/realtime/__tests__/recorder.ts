import type { RealtimeEvent } from '../event-model.js';
import type { EventMeta, StateChangeInfo, SubscriptionHandlers, SubscriptionState } from '../types.js';

/** Handlers that record everything, plus waiting helpers for tests. */
export function recorder(onEvent?: (event: RealtimeEvent, meta: EventMeta) => void | Promise<void>) {
  const events: RealtimeEvent[] = [];
  const sources: EventMeta['source'][] = [];
  const states: { state: SubscriptionState; info: StateChangeInfo }[] = [];
  const errors: Error[] = [];
  const handlers: SubscriptionHandlers = {
    onEvent(event, meta) {
      events.push(event);
      sources.push(meta.source);
      return onEvent?.(event, meta);
    },
    onStateChange(state, info) {
      states.push({ state, info });
    },
    onError(error) {
      errors.push(error);
    },
  };
  return { handlers, events, sources, states, errors };
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
export function recordIdOf(event: RealtimeEvent): number {
  if (event.id !== undefined) return event.id;
  const match = /\/snapshots\/(\d+)\.png/.exec(event.imageUrl ?? '');
  if (!match) throw new Error(`no record id in ${event.imageUrl}`);
  return Number(match[1]);
}
