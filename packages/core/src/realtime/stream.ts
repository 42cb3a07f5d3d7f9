import type { ObservationEvent } from '../model/observation-event.js';
import type { Admission } from './admission.js';
import type { Connection } from './connection.js';
import type { StreamStatus } from './state.js';
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
  /** The cooldown held it back (then `wanted` is false too). */
  held?: true;
}

/** Where a stream's events go: held while no socket is open or a catch-up runs, to the queue once live. */
export type StreamPhase = 'waiting' | 'catching-up' | 'live';

/**
 * One socket and what is known of its events. Its state (`phase` to `capacityReported`) changes
 * only through `reduceStream`; the subscription dispatches the actions and derives its own state.
 */
export interface Stream {
  readonly label: string;
  readonly historyTasks: number[] | 'all';
  readonly connection: Connection;
  /** The connection's reconnect part: settles once it has stopped. */
  readonly running: Promise<void>;
  readonly admission: Admission;
  /** The first catch-up starts here; undefined: go live at once. */
  readonly startFromMs: number | undefined;
  readonly phase: StreamPhase;
  /** Went live once: from then on a catch-up starts from what was admitted. */
  readonly started: boolean;
  /** Live frames held while not live, in arrival order. */
  readonly pending: readonly Item[];
  /** Stops the running catch-up and the read-back after it. */
  readonly catchUp: AbortController | undefined;
  /** Live, with the lateness read-back of the last catch-up still running. */
  readonly readingBack: boolean;
  /** DEDUPE_CAPACITY was reported for it (once per stream). */
  readonly capacityReported: boolean;
}

/** Everything that changes a stream's state. */
export type StreamAction =
  | { type: 'held'; item: Item }
  | { type: 'catching-up'; catchUp: AbortController }
  /** The held frames were taken for delivery. */
  | { type: 'taken' }
  /** Live; `readBack`: a read of history still goes on beside it (a fresh start's), ended by closing. */
  | { type: 'live'; readBack?: AbortController }
  | { type: 'caught-up'; signal: AbortSignal }
  | { type: 'reading-back'; readingBack: boolean }
  | { type: 'capacity-reported' }
  | { type: 'closed' };

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The one place a stream's state changes (TanStack query-core's reducer, in place: a held frame
 * is one push, not a copy of every frame held before it).
 */
export function reduceStream(target: Stream, action: StreamAction): void {
  const stream = target as Mutable<Stream> & { pending: Item[] };
  switch (action.type) {
    case 'held':
      stream.pending.push(action.item);
      return;
    case 'catching-up':
      stream.phase = 'catching-up';
      stream.catchUp = action.catchUp;
      return;
    case 'taken':
      stream.pending = [];
      return;
    case 'live':
      stream.phase = 'live';
      if (action.readBack) stream.catchUp = action.readBack;
      stream.started = true;
      stream.pending = [];
      return;
    case 'caught-up':
      if (stream.catchUp?.signal === action.signal) stream.catchUp = undefined;
      return;
    case 'reading-back':
      stream.readingBack = action.readingBack;
      return;
    case 'capacity-reported':
      stream.capacityReported = true;
      return;
    case 'closed':
      stream.catchUp?.abort();
      stream.catchUp = undefined;
      stream.phase = 'waiting';
      stream.pending = [];
      return;
  }
}

/** Where one stream stands, for the subscription's combined state. */
export function streamStatus(stream: Stream): StreamStatus {
  return stream.phase === 'catching-up' ? 'backfilling' : stream.connection.status;
}

export function newItem(
  event: ObservationEvent,
  raw: unknown,
  source: EventMeta['source'],
  stream: Stream,
): Item {
  return { event, meta: { raw, source, attempt: 1 }, stream, order: -1, wanted: true };
}
