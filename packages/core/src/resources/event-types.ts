import type { ClientCore } from '../context/client-core.js';
import { HttpError } from '../errors/http-error.js';
import { getJson } from '../http/request.js';
import type { EventType } from '../model/event-type.js';
import { parseId } from '../validation/parse-id.js';
import type { RequestOptions } from './locations.js';
import { expectRecord, readAll } from './read-list.js';

const lookupConcurrency = 4;

export interface EventTypesApi {
  getType(id: number | string, options?: RequestOptions): Promise<EventType>;
  listTypes(options?: RequestOptions): Promise<EventType[]>;
}

/** Event ids of a task in list form (ids) or, on some deployments, objects with an id. */
function taskEventIds(events: unknown): number[] {
  if (!Array.isArray(events)) return [];
  const ids: number[] = [];
  for (const item of events) {
    const id = typeof item === 'number' ? item : (item as { id?: unknown } | null)?.id;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) ids.push(id);
  }
  return ids;
}

/**
 * Event type lookups, cached per client (types change rarely). The spec has no list endpoint,
 * so `listTypes` gathers the event ids of every task and looks each up, a few at a time.
 */
export function createEventTypesApi(core: ClientCore): EventTypesApi {
  const cache = new Map<number, EventType>();

  async function getType(id: number | string, options?: RequestOptions): Promise<EventType> {
    const eventId = parseId(id, 'eventId');
    core.assertOpen();
    const cached = cache.get(eventId);
    if (cached) return cached;
    const body = await getJson(core.http, { path: `/events/types/${eventId}`, signal: options?.signal });
    const type = expectRecord<EventType>(body, `GET /events/types/${eventId}`);
    cache.set(eventId, type);
    return type;
  }

  async function listTypes(options?: RequestOptions): Promise<EventType[]> {
    const ids = new Set<number>();
    for await (const task of readAll<{ events?: unknown }>(
      core,
      '/tasks',
      {},
      0,
      undefined,
      options?.signal,
    )) {
      for (const id of taskEventIds(task.events)) ids.add(id);
    }
    const queue = [...ids].sort((a, b) => a - b);
    const found = new Map<number, EventType>();
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        try {
          found.set(id, await getType(id, options));
        } catch (error) {
          // A task may reference a type the service no longer knows: list the rest.
          if (HttpError.isInstance(error) && error.status === 404) {
            core.logger.warn('a task references an unknown event type', { eventId: id });
            continue;
          }
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(lookupConcurrency, queue.length) }, worker));
    return [...found.values()].sort((a, b) => a.id - b.id);
  }

  return { getType, listTypes };
}
