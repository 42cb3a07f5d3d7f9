import type { TaskSummary } from '@observation-service/core/portable';
import type {
  ILoadOptionsFunctions,
  INodeListSearchItems,
  INodeListSearchResult,
  INodePropertyOptions,
} from 'n8n-workflow';
import { toNodeError } from './node-error';
import { withClient } from './open-client';

/** Matches per page of the editor's list; n8n asks for the next page with the token as the user scrolls. */
const pageSize = 100;

function matches(filter: string | undefined, name: unknown, id: number): boolean {
  if (!filter) return true;
  const needle = filter.trim().toLowerCase();
  return String(name).toLowerCase().includes(needle) || String(id) === needle;
}

async function guarded<T>(context: ILoadOptionsFunctions, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toNodeError(context.getNode(), error);
  }
}

/**
 * One page of matches from a list the service pages by offset (and cannot filter by name): the
 * scan goes on from the offset in `paginationToken` until a page of matches is full; the next
 * token is the offset after the last item read. Without a token the list is complete.
 */
async function searchPage<T extends { id: number; name: string }>(
  list: (offset: number) => AsyncIterable<T>,
  filter: string | undefined,
  paginationToken: string | undefined,
  show: (item: T) => INodeListSearchItems,
): Promise<INodeListSearchResult> {
  const from = Number(paginationToken ?? 0);
  const offset = Number.isSafeInteger(from) && from > 0 ? from : 0;
  const results: INodeListSearchItems[] = [];
  let read = 0;
  for await (const item of list(offset)) {
    read++;
    if (!matches(filter, item.name, item.id)) continue;
    results.push(show(item));
    if (results.length >= pageSize) return { results, paginationToken: String(offset + read) };
  }
  return { results };
}

function showTask(task: TaskSummary): INodeListSearchItems {
  return { name: `${task.name} (#${task.id}, ${task.status})`, value: String(task.id) };
}

/** Resource locator "From list" for tasks: name contains the search text, or the id equals it. */
export async function searchTasks(
  this: ILoadOptionsFunctions,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  return guarded(this, () =>
    withClient(this, (client) =>
      searchPage((offset) => client.tasks.all({ offset }), filter, paginationToken, showTask),
    ),
  );
}

/** Resource locator "From list" for locations. */
export async function searchLocations(
  this: ILoadOptionsFunctions,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  return guarded(this, () =>
    withClient(this, (client) =>
      searchPage(
        (offset) => client.locations.all({ offset }),
        filter,
        paginationToken,
        (location) => ({
          name: `${location.name} (#${location.id})`,
          value: String(location.id),
        }),
      ),
    ),
  );
}

/** Multi-select of tasks for the triggers: every task (an options list has no pages). */
export async function getTasks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  return guarded(this, () =>
    withClient(this, async (client) => {
      const options: INodePropertyOptions[] = [];
      for await (const task of client.tasks.all()) {
        const { name, value } = showTask(task);
        options.push({ name, value: Number(value) });
      }
      return options;
    }),
  );
}

/** Event types known to the service (core collects them from the tasks), by name. */
export async function getEventNames(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  return guarded(this, () =>
    withClient(this, async (client) => {
      const types = await client.events.listTypes();
      return types.map((type) => ({ name: type.name, value: type.name, description: type.description }));
    }),
  );
}

/** Event types by id (the history filter `event_id` and Get Type take the id). */
export async function getEventTypes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  return guarded(this, () =>
    withClient(this, async (client) => {
      const types = await client.events.listTypes();
      return types.map((type) => ({
        name: `${type.name} (#${type.id})`,
        value: type.id,
        description: type.description,
      }));
    }),
  );
}
