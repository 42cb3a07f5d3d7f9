import type { ProtocolError } from '../errors/protocol-error.js';
import type { RealtimeContext } from './context.js';
import { type EventKey, rawEventKey } from './event-key.js';
import type { RealtimeEvent } from './event-model.js';
import { type NormalizeFn, parseRecord } from './frame-parser.js';
import { type HistoryDirection, historyDirection, type OrderClue, sortHistory } from './ordered-merge.js';

export interface HistoryItem {
  event: RealtimeEvent;
  raw: unknown;
}

export interface HistoryWindowOptions {
  context: RealtimeContext;
  taskIds: number[] | 'all';
  fromMs: number;
  /** Length of one history window; the last window is open-ended (up to now). */
  sliceMs: number;
  /** Windows read at the same time. */
  concurrency: number;
  normalize: NormalizeFn;
  /** Acceptance order of an event key already delivered, or undefined when it is new. */
  knownOrder(key: EventKey): number | undefined;
  /** An event already delivered was skipped. */
  onDuplicate(): void;
  /** Server order learned before, for windows without evidence (the spec does not fix it). */
  fallbackDirection(): HistoryDirection;
  onDirection(direction: HistoryDirection): void;
  onMalformed(error: ProtocolError): void;
  signal: AbortSignal;
}

/**
 * Reads history from `fromMs` up to now in consecutive windows, each one sorted ascending.
 * History may come in any order, so a window has to be read whole before it can be sorted;
 * windows keep that memory proportional to a few windows, not to the whole outage. Window edges
 * overlap by up to a second (the wire time has second resolution); dedupe absorbs it.
 *
 * Up to `concurrency` windows are read at once while the caller delivers them in order: a
 * catch-up is mostly waiting for pages, so this divides its time. Events already delivered
 * (most of a catch-up is the overlap) are skipped before normalization, and serve as evidence
 * of the server's page order.
 */
export async function* readHistoryWindows(
  options: HistoryWindowOptions,
): AsyncGenerator<{ items: HistoryItem[]; final: boolean }> {
  // Reads still in flight when the caller stops (error, abort, early return) are cancelled.
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(options.signal.reason);
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  const inFlight: Promise<HistoryWindow>[] = [];
  let nextStart = options.fromMs;
  let launchedFinal = false;
  const launch = (): void => {
    while (!launchedFinal && inFlight.length < options.concurrency) {
      const final = nextStart + options.sliceMs >= options.context.clock.now();
      const read = readWindow(options, nextStart, final, controller.signal);
      // Rejections surface when awaited; this only keeps an abandoned read quiet.
      read.catch(() => undefined);
      inFlight.push(read);
      nextStart += options.sliceMs;
      launchedFinal = final;
    }
  };
  try {
    launch();
    while (inFlight.length > 0) {
      const window = await (inFlight.shift() as Promise<HistoryWindow>);
      launch();
      yield { items: window.items, final: window.final };
    }
  } finally {
    controller.abort();
    options.signal.removeEventListener('abort', onAbort);
  }
}

interface HistoryWindow {
  items: HistoryItem[];
  final: boolean;
}

async function readWindow(
  options: HistoryWindowOptions,
  start: number,
  final: boolean,
  signal: AbortSignal,
): Promise<HistoryWindow> {
  const query = {
    startTime: new Date(start),
    taskIds: options.taskIds,
    ...(final ? {} : { endTime: new Date(start + options.sliceMs) }),
  };
  const items: HistoryItem[] = [];
  const clues: OrderClue[] = [];
  for await (const raw of options.context.fetchHistory(query, signal)) {
    const key = rawEventKey(raw);
    const known = key === undefined ? undefined : options.knownOrder(key);
    if (known !== undefined) {
      clues.push({ known });
      options.onDuplicate();
      continue;
    }
    const parsed = parseRecord(raw, options.normalize, 'a history event');
    if (parsed.ok) {
      items.push({ event: parsed.event, raw: parsed.raw });
      clues.push({ time: parsed.event.occurredAt.getTime() });
    } else {
      options.onMalformed(parsed.error);
    }
  }
  const found = historyDirection(clues);
  if (found) options.onDirection(found);
  return { items: sortHistory(items, found ?? options.fallbackDirection()), final };
}
