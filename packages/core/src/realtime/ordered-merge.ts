import type { RealtimeEvent } from './event-model.js';

export interface TimedItem {
  event: RealtimeEvent;
}

/**
 * Puts history in ascending time order whatever order the server paged it in. Within one second
 * only the record id (extended form) can order events; without ids the server's own order is
 * kept, reversed first when the server evidently pages newest-first.
 */
export function sortHistory<T extends TimedItem>(items: T[]): T[] {
  let ascending = 0;
  let descending = 0;
  for (let i = 1; i < items.length; i++) {
    const previous = timeOf(items[i - 1] as T);
    const current = timeOf(items[i] as T);
    if (current > previous) ascending++;
    else if (current < previous) descending++;
  }
  const ordered = descending > ascending ? [...items].reverse() : [...items];
  // Array.prototype.sort is stable, which keeps the server's order for equal keys.
  return ordered.sort(compareItems);
}

/**
 * Merges a sorted history window with the live events that arrived while it was being read:
 * one ascending sequence where, for equal keys, history comes first (so the history copy of an
 * event seen both ways is the one kept by dedupe, and live-only events follow it).
 */
export function mergeCatchUp<T extends TimedItem>(history: T[], pending: T[]): T[] {
  if (pending.length === 0) return history;
  return [...history, ...pending].sort(compareItems);
}

function compareItems(a: TimedItem, b: TimedItem): number {
  const byTime = timeOf(a) - timeOf(b);
  if (byTime !== 0) return byTime;
  const idA = a.event.id;
  const idB = b.event.id;
  return idA !== undefined && idB !== undefined ? idA - idB : 0;
}

function timeOf(item: TimedItem): number {
  return item.event.occurredAt.getTime();
}
