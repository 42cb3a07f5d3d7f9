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
 * windows keep that memory proportional to one window, not to the whole outage. Window edges
 * overlap by up to a second (the wire time has second resolution); dedupe absorbs it.
 *
 * The next window is read while the caller delivers the current one (two windows at most in
 * memory), which halves a typical catch-up. Events already delivered (most of a catch-up is the
 * overlap) are skipped before normalization, and serve as evidence of the server's page order.
 */
export async function* readHistoryWindows(
  options: HistoryWindowOptions,
): AsyncGenerator<{ items: HistoryItem[]; final: boolean }> {
  let next: Promise<HistoryWindow> | undefined = readWindow(options, options.fromMs);
  try {
    while (next) {
      const window: HistoryWindow = await next;
      next = undefined;
      if (!window.final) {
        next = readWindow(options, window.endMs);
        // Rejections surface when awaited; this only keeps an abandoned read quiet.
        next.catch(() => undefined);
      }
      yield { items: window.items, final: window.final };
    }
  } finally {
    // The caller stopped early (abort, error): the read in flight ends with the same signal.
    next?.catch(() => undefined);
  }
}

interface HistoryWindow {
  items: HistoryItem[];
  final: boolean;
  endMs: number;
}

async function readWindow(options: HistoryWindowOptions, start: number): Promise<HistoryWindow> {
  const final = start + options.sliceMs >= options.context.clock.now();
  const end = start + options.sliceMs;
  const query = {
    startTime: new Date(start),
    taskIds: options.taskIds,
    ...(final ? {} : { endTime: new Date(end) }),
  };
  const items: HistoryItem[] = [];
  const clues: OrderClue[] = [];
  for await (const raw of options.context.fetchHistory(query, options.signal)) {
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
  return { items: sortHistory(items, found ?? options.fallbackDirection()), final, endMs: end };
}
