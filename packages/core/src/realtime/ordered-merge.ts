import type { ObservationEvent } from '../model/observation-event.js';

export interface TimedItem {
  event: ObservationEvent;
  meta?: { source: 'live' | 'backfill' };
}

export type HistoryDirection = 'asc' | 'desc';

/** What one history entry tells about the page order: its time, and where we saw it live. */
export interface OrderClue {
  time?: number;
  /** Acceptance order of an event we already had (larger = later), when known. */
  known?: number;
}

/**
 * Which way the server paged history, from the evidence in the page itself: timestamps that step
 * up or down, and events whose true order we already know (the order we received them live).
 * Undefined when there is no evidence, e.g. basic-form events that all share one second and none
 * of which we saw before.
 */
export function historyDirection(clues: readonly OrderClue[]): HistoryDirection | undefined {
  let score = 0;
  let previousTime: number | undefined;
  let previousKnown: number | undefined;
  for (const clue of clues) {
    if (clue.time !== undefined) {
      if (previousTime !== undefined) score += Math.sign(clue.time - previousTime);
      previousTime = clue.time;
    }
    if (clue.known !== undefined) {
      if (previousKnown !== undefined) score += Math.sign(clue.known - previousKnown);
      previousKnown = clue.known;
    }
  }
  return score > 0 ? 'asc' : score < 0 ? 'desc' : undefined;
}

/**
 * Puts history in ascending time order whatever order the server paged it in. Within one second
 * only the record id (extended form) can order events; without ids the server's own order is
 * kept, reversed first when the server pages newest-first.
 */
export function sortHistory<T extends TimedItem>(items: readonly T[], direction: HistoryDirection): T[] {
  const ordered = direction === 'desc' ? [...items].reverse() : [...items];
  // Array.prototype.sort is stable, which keeps the server's order for equal keys.
  return ordered.sort(compareItems);
}

/**
 * Merges a sorted history window with the live events that arrived while it was being read:
 * one ascending sequence where, for equal keys, history comes first (so the history copy of an
 * event seen both ways is the one kept by dedupe, and live-only events follow it).
 */
export function mergeCatchUp<T extends TimedItem>(history: T[], pending: readonly T[]): T[] {
  if (pending.length === 0) return history;
  return [...history, ...pending].sort(compareItems);
}

function compareItems(a: TimedItem, b: TimedItem): number {
  const byTime = timeOf(a) - timeOf(b);
  if (byTime !== 0) return byTime;
  const idA = a.event.id;
  const idB = b.event.id;
  if (idA === undefined || idB === undefined) return 0;
  // One event both in history and held live: the live frame goes first, so it is the one admitted.
  if (idA === idB) return sourceRank(a) - sourceRank(b);
  return idA - idB;
}

function sourceRank(item: TimedItem): number {
  return item.meta?.source === 'live' ? 0 : 1;
}

function timeOf(item: TimedItem): number {
  return item.event.occurredAt.getTime();
}
