import type {
  ILoadOptionsFunctions,
  INodeListSearchItems,
  INodeListSearchResult,
  INodePropertyOptions,
} from 'n8n-workflow';
import { toNodeError } from './node-error';
import { withClient } from './open-client';

/** Lists shown in the editor stay short; the "By ID" mode covers anything beyond. */
const maxListed = 200;

function matches(filter: string | undefined, name: string, id: number): boolean {
  if (!filter) return true;
  const needle = filter.trim().toLowerCase();
  return name.toLowerCase().includes(needle) || String(id) === needle;
}

async function guarded<T>(context: ILoadOptionsFunctions, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toNodeError(context.getNode(), error);
  }
}

/** Resource locator "From list" for tasks: name contains the search text, or the id equals it. */
export async function searchTasks(
  this: ILoadOptionsFunctions,
  filter?: string,
): Promise<INodeListSearchResult> {
  return guarded(this, () =>
    withClient(this, async (client) => {
      const results: INodeListSearchItems[] = [];
      for await (const task of client.tasks.all()) {
        if (!matches(filter, task.name, task.id)) continue;
        results.push({ name: `${task.name} (#${task.id}, ${task.status})`, value: String(task.id) });
        if (results.length >= maxListed) break;
      }
      return { results };
    }),
  );
}

/** Resource locator "From list" for locations. */
export async function searchLocations(
  this: ILoadOptionsFunctions,
  filter?: string,
): Promise<INodeListSearchResult> {
  return guarded(this, () =>
    withClient(this, async (client) => {
      const results: INodeListSearchItems[] = [];
      for await (const location of client.locations.all()) {
        if (!matches(filter, location.name, location.id)) continue;
        results.push({ name: `${location.name} (#${location.id})`, value: String(location.id) });
        if (results.length >= maxListed) break;
      }
      return { results };
    }),
  );
}

/** Multi-select of tasks for the trigger. */
export async function getTasks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  const { results } = await searchTasks.call(this);
  return results.map((result) => ({ name: result.name, value: Number(result.value) }));
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
