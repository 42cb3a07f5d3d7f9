import type { ObservationEvent } from '../model/observation-event.js';
import type { Admission } from './admission.js';
import type { Connection } from './connection.js';
import type { EventMeta } from './types.js';

/** One event on its way from a socket or from history to the handler. */
export interface Item {
  event: ObservationEvent;
  meta: EventMeta;
  stream: Stream;
  /** Admission order within its stream (set when admitted). */
  order: number;
  /** False when the filter keeps it from the handler (set when admitted). */
  wanted: boolean;
}

/**
 * One socket and what is known of its events: a plain record the subscription reads and writes.
 * `phase` is where its events go: held back while no socket is open or a catch-up runs (merged in
 * time order afterwards), straight to the queue once live.
 */
export interface Stream {
  readonly label: string;
  readonly historyTasks: number[] | 'all';
  /** Set right after the record is made (the connection publishes to the record). */
  connection: Connection;
  readonly admission: Admission;
  /** The first catch-up starts here; undefined: go live at once. */
  readonly startFromMs: number | undefined;
  phase: 'waiting' | 'catching-up' | 'live';
  /** Went live once: from then on a catch-up starts from what was admitted. */
  started: boolean;
  pending: Item[];
  /** Stops the running catch-up and the read-back after it. */
  catchUp: AbortController | undefined;
  /** Live, with the lateness read-back of the last catch-up still running. */
  readingBack: boolean;
  capacityReported: boolean;
}

export function newItem(
  event: ObservationEvent,
  raw: unknown,
  source: EventMeta['source'],
  stream: Stream,
): Item {
  return { event, meta: { raw, source }, stream, order: -1, wanted: true };
}
