import type { ProtocolError } from '../errors/protocol-error.js';
import type { ObservationEvent } from '../model/observation-event.js';
import type { RealtimeContext } from './context.js';
import { type EventKey, eventKey, rawEventKey } from './event-key.js';
import { parseRecord } from './frame-parser.js';
import { type HistoryDirection, historyDirection, type OrderClue, sortHistory } from './ordered-merge.js';

export interface HistoryItem {
  event: ObservationEvent;
  raw: unknown;
}

export interface CatchUpOptions {
  context: RealtimeContext;
  taskIds: number[] | 'all';
  fromMs: number;
  /** Where to stop (the last window ends there); undefined: up to whatever the service recorded. */
  toMs?: number;
  /** Windows read at the same time. */
  concurrency: number;
  /** Admission order of an event key already admitted, or undefined when it is new. */
  knownOrder(key: EventKey): number | undefined;
  /** An event already admitted was skipped. */
  onDuplicate(): void;
  /** Server order learned before, for windows without evidence (the spec does not fix it). */
  fallbackDirection(): HistoryDirection;
  onDirection(direction: HistoryDirection): void;
  onMalformed(error: ProtocolError): void;
  signal: AbortSignal;
}

/** Length of the first windows, before any answer told how dense history is. */
export const firstWindowMs = 5_000;
/** A window is sized to hold about this many events (a few pages of the extended form). */
const targetEventsPerWindow = 400;
/** Windows never shrink below a second (the wire time's resolution)... */
const minWindowMs = 1_000;
/** ...and grow at most this much from one to the next, so a burst after a quiet spell stays small. */
const maxGrowth = 16;

/**
 * Reads history from `fromMs` up to now in consecutive windows, each one sorted ascending.
 * History may come in any order, so a window has to be read whole before it can be sorted;
 * windows keep that memory proportional to a few windows, not to the whole outage.
 *
 * Window lengths follow the events, not the clock: each new window is sized from the density of
 * the last one read (about `targetEventsPerWindow` events), growing at most `maxGrowth`-fold, so a
 * day of a quiet task is a handful of requests while a busy minute is still cut into pages' worth.
 * The last window has no end (unless `toMs` gives one): it reaches whatever the service recorded
 * by the time it is read.
 * Windows are whole seconds and do not overlap: each ends the second before the next begins.
 *
 * Up to `concurrency` windows are read at once while the caller delivers them in order. Events
 * already admitted (most of a catch-up is the lateness overlap) are skipped before normalization
 * and serve as evidence of the server's page order.
 */
export async function* readCatchUpWindows(
  options: CatchUpOptions,
): AsyncGenerator<{ items: HistoryItem[]; final: boolean; endMs: number | undefined }> {
  // Reads still in flight when the caller stops (error, abort, early return) are cancelled.
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(options.signal.reason);
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  const inFlight: Promise<HistoryWindow>[] = [];
  // Windows are whole seconds (the wire time's resolution), each ending the second before the next
  // begins: no second is read by two windows.
  let nextStart = Math.floor(options.fromMs / 1000) * 1000;
  let length = firstWindowMs;
  let launchedFinal = false;
  // The first window goes alone: until one answer tells how dense history is, parallel windows
  // would all be sized by a guess.
  let parallel = 1;
  const launch = (): void => {
    while (!launchedFinal && inFlight.length < parallel) {
      const end = options.toMs ?? options.context.clock.now();
      // The first second after the one `end` falls in.
      const endSecond = Math.floor(end / 1000) * 1000 + 1000;
      const final = nextStart + length >= endSecond;
      // Only the last window of a read without `toMs` is open-ended; any other ends by `end`.
      const lengthMs =
        final && options.toMs === undefined ? undefined : Math.min(length, endSecond - nextStart);
      const read = readWindow(options, nextStart, lengthMs, final, controller.signal);
      // Rejections surface when awaited; this only keeps an abandoned read quiet.
      read.catch(() => undefined);
      inFlight.push(read);
      nextStart += length;
      launchedFinal = final;
    }
  };
  try {
    launch();
    while (inFlight.length > 0) {
      const window = await (inFlight.shift() as Promise<HistoryWindow>);
      if (!window.final && window.lengthMs !== undefined) {
        const wanted =
          window.seen === 0
            ? Number.POSITIVE_INFINITY
            : (targetEventsPerWindow * window.lengthMs) / window.seen;
        length = Math.max(minWindowMs, Math.round(Math.min(wanted, length * maxGrowth) / 1000) * 1000);
        parallel = options.concurrency;
      }
      launch();
      const endMs = window.lengthMs === undefined ? undefined : window.startMs + window.lengthMs;
      yield { items: window.items, final: window.final, endMs };
    }
  } finally {
    controller.abort();
    options.signal.removeEventListener('abort', onAbort);
  }
}

interface HistoryWindow {
  items: HistoryItem[];
  /** Events the service listed in it, repeats included: how dense history is there. */
  seen: number;
  startMs: number;
  /** Undefined for an open-ended last window. */
  lengthMs: number | undefined;
  final: boolean;
}

async function readWindow(
  options: CatchUpOptions,
  start: number,
  lengthMs: number | undefined,
  final: boolean,
  signal: AbortSignal,
): Promise<HistoryWindow> {
  const query = {
    startTime: new Date(start),
    taskIds: options.taskIds,
    // Its last whole second (history's end time includes the second it names).
    ...(lengthMs === undefined ? {} : { endTime: new Date(start + lengthMs - 1000) }),
  };
  const items: HistoryItem[] = [];
  const clues: OrderClue[] = [];
  let seen = 0;
  for await (const raw of options.context.fetchHistory(query, signal)) {
    seen++;
    // A record id is read without normalizing; an older-form identity needs the normalized event.
    let key = rawEventKey(raw);
    let parsed: ReturnType<typeof parseRecord> | undefined;
    if (key === undefined) {
      parsed = parseRecord(raw, 'a history event');
      if (parsed.ok) key = eventKey(parsed.event);
    }
    const known = key === undefined ? undefined : options.knownOrder(key);
    if (known !== undefined) {
      clues.push({ known });
      options.onDuplicate();
      continue;
    }
    parsed ??= parseRecord(raw, 'a history event');
    if (parsed.ok) {
      items.push({ event: parsed.event, raw: parsed.raw });
      clues.push({ time: parsed.event.occurredAt.getTime() });
    } else {
      options.onMalformed(parsed.error);
    }
  }
  const found = historyDirection(clues);
  if (found) options.onDirection(found);
  return {
    items: sortHistory(items, found ?? options.fallbackDirection()),
    seen,
    startMs: start,
    lengthMs,
    final,
  };
}

/**
 * The keys of the events the service lists for one second of history (all its pages). A
 * malformed one is skipped: the catch-up that meets it, if any ever does, reports it.
 */
export async function* readSecondKeys(
  context: RealtimeContext,
  taskIds: number[] | 'all',
  secondMs: number,
  signal: AbortSignal,
): AsyncGenerator<EventKey> {
  const query = { startTime: new Date(secondMs), endTime: new Date(secondMs + 999), taskIds };
  for await (const raw of context.fetchHistory(query, signal)) {
    const key = rawEventKey(raw);
    if (key !== undefined) {
      yield key;
      continue;
    }
    const parsed = parseRecord(raw, 'a history event');
    if (parsed.ok) yield eventKey(parsed.event);
  }
}
