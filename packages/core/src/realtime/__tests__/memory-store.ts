import type { PositionStore, StoredPosition } from '../../ports.js';

/**
 * A position store in memory, as a host's would be (n8n static data, Node-RED context): it only
 * keeps what core hands it, so a test can restart a subscription from it or plant a bad value.
 * `keepHistory` also keeps every position saved, for a test that checks each save: only there,
 * since a subscription saving after every event of a long run (`positionSaveMs: 0`) saves
 * thousands of positions of hundreds of keys each, gigabytes kept for nothing.
 */
export function memoryStore(
  initial?: unknown,
  options: { keepHistory?: boolean } = {},
): PositionStore & { value: unknown; saves: number; history: StoredPosition[] } {
  // Kept as JSON text, as every host keeps it: nothing survives that is not plain data. Parsed
  // when read, not at each save: a storm saving after every event spent a tenth of its CPU
  // parsing positions nobody read (never-lose-messy, profiled).
  let json: string | undefined;
  let planted = initial;
  const store = {
    get value(): unknown {
      if (json !== undefined) {
        planted = JSON.parse(json);
        json = undefined;
      }
      return planted;
    },
    set value(value: unknown) {
      json = undefined;
      planted = value;
    },
    saves: 0,
    /** Every position saved, in order (with `keepHistory` only). */
    history: [] as StoredPosition[],
    load: () => store.value,
    save(position: StoredPosition) {
      store.saves++;
      json = JSON.stringify(position);
      if (options.keepHistory) store.history.push(JSON.parse(json) as StoredPosition);
    },
  };
  return store;
}
