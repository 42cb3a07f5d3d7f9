import type { ObservationEvent } from '../model/observation-event.js';

/**
 * A read that stopped at a cap, and whether it cut anything off. Both hosts show it (n8n's Limit,
 * Node-RED's "All pages, up to a cap"), so a count built on a capped read is never wrong silently.
 */
export interface CappedHistory {
  /** The events read, in the service's order: the first `max` it lists. */
  events: ObservationEvent[];
  /** True when the service holds more matching events than were read (proved by one more). */
  truncated: boolean;
  /** Oldest and newest occurrence time among `events`; undefined when none was read. */
  span: { from: Date; to: Date } | undefined;
  /**
   * When `truncated`: which end of the time range the events not read lie at, from the order the
   * service listed them in. `older` for a newest-first service (the usual one, and the
   * simulator): everything before `span.from` may be missing. `newer` for an oldest-first one.
   * `unknown` when the events read all share one second or come in no time order.
   */
  missing?: 'older' | 'newer' | 'unknown';
}

/**
 * Makes the answer of a read of `max + 1` events: the extra one, when it came, is only the proof
 * that more exist and is not returned, so the caller gets exactly what it asked for.
 */
export function cappedHistory(read: ObservationEvent[], max: number): CappedHistory {
  const truncated = read.length > max;
  const events = truncated ? read.slice(0, max) : read;
  const span = spanOf(events);
  if (!truncated) return { events, truncated, span };
  return { events, truncated, span, missing: missingEnd(events) };
}

function spanOf(events: ObservationEvent[]): CappedHistory['span'] {
  if (events.length === 0) return undefined;
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const event of events) {
    const time = event.occurredAt.getTime();
    if (time < from) from = time;
    if (time > to) to = time;
  }
  return { from: new Date(from), to: new Date(to) };
}

/** The end the service's listing runs towards: where it would have gone on past the cap. */
function missingEnd(events: ObservationEvent[]): 'older' | 'newer' | 'unknown' {
  let fell = false;
  let rose = false;
  for (let index = 1; index < events.length; index++) {
    const before = (events[index - 1] as ObservationEvent).occurredAt.getTime();
    const time = (events[index] as ObservationEvent).occurredAt.getTime();
    // Seconds only: the wire time has one-second resolution, so ties say nothing.
    const step = Math.floor(time / 1000) - Math.floor(before / 1000);
    if (step < 0) fell = true;
    if (step > 0) rose = true;
  }
  if (fell === rose) return 'unknown';
  return fell ? 'older' : 'newer';
}
