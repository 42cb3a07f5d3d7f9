import type { ServerLink } from './server-link.js';

/** Ids the book remembers per kind; a deployment has far fewer tasks and locations than this. */
const MAX_IDS = 1000;
/** A failed lookup is not repeated for this long, so a down service is not asked once per event. */
const RETRY_AFTER_MS = 60_000;

interface Entry {
  name?: string;
  failedAt?: number;
  pending?: Promise<string | undefined>;
}

/**
 * Task and location names by id, looked up once through the server node's core client
 * (`tasks.get`, `locations.get`). The service has no camera names, so cameras show as their id
 * unless the flow sets `msg.cameraName`.
 */
export class NameBook {
  readonly #tasks = new Map<number, Entry>();
  readonly #locations = new Map<number, Entry>();

  constructor(
    readonly server: ServerLink,
    readonly now: () => number = Date.now,
  ) {}

  taskName(id: number): Promise<string | undefined> {
    return this.#lookup(this.#tasks, id, async () => (await this.server.client().tasks.get(id)).name);
  }

  locationName(id: number): Promise<string | undefined> {
    return this.#lookup(this.#locations, id, async () => (await this.server.client().locations.get(id)).name);
  }

  async #lookup(
    book: Map<number, Entry>,
    id: number,
    fetchName: () => Promise<string>,
  ): Promise<string | undefined> {
    const known = book.get(id);
    if (known?.name !== undefined) return known.name;
    if (known?.pending) return known.pending;
    if (known?.failedAt !== undefined && this.now() - known.failedAt < RETRY_AFTER_MS) return undefined;
    if (!known && book.size >= MAX_IDS) book.delete(book.keys().next().value as number);
    const entry: Entry = {};
    entry.pending = fetchName().then(
      (name) => {
        book.set(id, { name });
        return name;
      },
      () => {
        book.set(id, { failedAt: this.now() });
        return undefined;
      },
    );
    book.set(id, entry);
    return entry.pending;
  }
}
