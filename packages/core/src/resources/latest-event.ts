import type { ClientCore } from '../context/client-core.js';
import { type EventFilterInput, matchesEventFilter, parseEventFilter } from '../filter/event-filter.js';
import type { ObservationEvent } from '../model/observation-event.js';
import { resolveSelection } from '../realtime/selection.js';
import type { TaskSelection } from '../realtime/types.js';
import { historyRaw, normalizeInto } from './events.js';

export interface LatestEventOptions {
  /** Only an event that passes (see `parseEventFilter`). */
  filter?: EventFilterInput;
  /** Look no further back than this (default 7 days). */
  withinMs?: number;
  signal?: AbortSignal;
}

/**
 * How far back each look goes: a busy service answers from the last seconds, a quiet one from
 * the last days, and neither reads more than it needs.
 */
const windowsMs = [10_000, 60_000, 600_000, 3_600_000, 86_400_000, 7 * 86_400_000];

/**
 * The newest event of the selected tasks that passes the filter, or undefined when there is none
 * within `withinMs` (what a host shows when a user tests a trigger: an event at once, without
 * waiting for a camera to see something). History's order is not promised, so each window is
 * read whole and the newest taken; windows grow until one holds a match.
 */
export async function latestEvent(
  core: ClientCore,
  selection: TaskSelection,
  options: LatestEventOptions = {},
): Promise<ObservationEvent | undefined> {
  return (await latestEntry(core, selection, options))?.event;
}

/** `latestEvent` with the item as the service sent it (`raw`). */
export async function latestEntry(
  core: ClientCore,
  selection: TaskSelection,
  options: LatestEventOptions = {},
): Promise<{ event: ObservationEvent; raw: unknown } | undefined> {
  const tasks = resolveSelection(selection);
  const filter = parseEventFilter(options.filter);
  // One name can be asked of the service; more (or object conditions) are checked here.
  const [onlyName] = filter.eventNames;
  const eventName = filter.eventNames.length === 1 ? onlyName : undefined;
  const withinMs = options.withinMs ?? windowsMs[windowsMs.length - 1];
  const now = core.clock.now();
  let searchedFromMs = now;
  for (const windowMs of windowsMs) {
    const fromMs = now - Math.min(windowMs, withinMs as number);
    let newest: { event: ObservationEvent; raw: unknown } | undefined;
    for (const taskId of tasks === 'all' ? [undefined] : tasks) {
      const filters = {
        startTime: new Date(fromMs),
        endTime: new Date(searchedFromMs),
        ...(taskId === undefined ? {} : { taskId }),
        ...(eventName === undefined ? {} : { eventName }),
      };
      for await (const page of historyRaw(core, filters, options.signal)) {
        for (const raw of page) {
          const event = normalizeInto(raw, core, undefined);
          if (event === undefined || !matchesEventFilter(event, filter)) continue;
          if (newest === undefined || isNewer(event, newest.event)) newest = { event, raw };
        }
      }
    }
    if (newest !== undefined) return newest;
    if (windowMs >= (withinMs as number)) return undefined;
    searchedFromMs = fromMs;
  }
  return undefined;
}

/** Later in time; within one second (the wire's resolution), the later record. */
function isNewer(event: ObservationEvent, than: ObservationEvent): boolean {
  const byTime = event.occurredAt.getTime() - than.occurredAt.getTime();
  if (byTime !== 0) return byTime > 0;
  return event.id !== undefined && than.id !== undefined && event.id > than.id;
}
