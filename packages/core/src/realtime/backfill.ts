import type { ProtocolError } from '../errors/protocol-error.js';
import type { RealtimeContext } from './context.js';
import type { RealtimeEvent } from './event-model.js';
import { type NormalizeFn, parseRecord } from './frame-parser.js';
import { sortHistory } from './ordered-merge.js';

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
  onMalformed(error: ProtocolError): void;
  signal: AbortSignal;
}

/**
 * Reads history from `fromMs` up to now in consecutive windows, each one sorted ascending.
 * History may come in any order, so a window has to be read whole before it can be sorted;
 * windows keep that memory proportional to one window, not to the whole outage. Window edges
 * overlap by up to a second (the wire time has second resolution); dedupe absorbs it.
 */
export async function* readHistoryWindows(
  options: HistoryWindowOptions,
): AsyncGenerator<{ items: HistoryItem[]; final: boolean }> {
  let start = options.fromMs;
  for (;;) {
    const final = start + options.sliceMs >= options.context.clock.now();
    const end = start + options.sliceMs;
    const query = {
      startTime: new Date(start),
      taskIds: options.taskIds,
      ...(final ? {} : { endTime: new Date(end) }),
    };
    const items: HistoryItem[] = [];
    for await (const raw of options.context.fetchHistory(query, options.signal)) {
      const parsed = parseRecord(raw, options.normalize, 'a history event');
      if (parsed.ok) items.push({ event: parsed.event, raw: parsed.raw });
      else options.onMalformed(parsed.error);
    }
    yield { items: sortHistory(items), final };
    if (final) return;
    start = end;
  }
}
