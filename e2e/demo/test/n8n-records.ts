import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './demo-process.js';

// What n8n itself recorded of a demo workflow, read from its sqlite file opened read-only (also
// while n8n runs, as e2e/n8n's crash test reads it): each execution's status, the events its
// trigger handed it and the events that reached the workflow's last node, and the trigger's saved
// record of unfinished executions (its static data).

const load = async <T>(path: string): Promise<T> =>
  (await import(pathToFileURL(join(repoRoot, path)).href)) as T;
// n8n's own `flatted` parser (from the e2e/n8n install) and e2e/n8n's reading of trigger items.
const { parseFlatted } = await load<{ parseFlatted(text: string): unknown }>('e2e/n8n/execution-data.mjs');
const { eventIdsOf } = await load<{ eventIdsOf(data: string | null): number[] }>(
  'e2e/n8n/queue-mode/records.mjs',
);

export interface Execution {
  id: number;
  status: string;
  /** When n8n created it (the trigger's emit) and when it ended, epoch ms (NaN while running). */
  createdAt: number;
  stoppedAt: number;
  /** Record ids of the items the trigger emitted into it. */
  triggerIds: number[];
  /** Record ids of the items the workflow's last node output: the events that ran to the end. */
  endIds: number[];
}

/** n8n's sqlite dates ("2026-12-02 07:38:34.719", UTC) in epoch ms; NaN for none. */
function utc(date: string | null): number {
  return date ? Date.parse(`${date.replace(' ', 'T')}Z`) : Number.NaN;
}

/** n8n statuses after which an execution's record no longer changes. */
const FINAL = new Set(['success', 'error', 'crashed', 'canceled']);

interface RunData {
  resultData?: {
    runData?: Record<string, Array<{ data?: { main?: Array<Array<{ json?: { id?: unknown } }>> } }>>;
  };
}

export class N8nRecords {
  /** Executions whose record is final, parsed once. */
  readonly #final = new Map<number, Execution>();

  constructor(
    readonly file: string,
    readonly workflowId: string,
    /** The node the workflow ends with. */
    readonly endNode: string,
  ) {}

  #read<T>(read: (db: DatabaseSync) => T): T {
    const db = new DatabaseSync(this.file, { readOnly: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  }

  #endIds(data: string | null): number[] {
    if (!data) return [];
    const run = parseFlatted(data) as RunData;
    return (run.resultData?.runData?.[this.endNode] ?? [])
      .flatMap((entry) => entry.data?.main?.[0] ?? [])
      .map((item) => item.json?.id)
      .filter((id): id is number => Number.isInteger(id));
  }

  /** Every execution of the workflow now; the run data of each is parsed once it is final. */
  executions(): Execution[] {
    return this.#read((db) => {
      const rows = db
        .prepare(
          'SELECT id, status, createdAt, stoppedAt FROM execution_entity WHERE workflowId = ? ORDER BY id',
        )
        .all(this.workflowId) as Array<{
        id: number;
        status: string;
        createdAt: string;
        stoppedAt: string | null;
      }>;
      const data = db.prepare('SELECT data FROM execution_data WHERE executionId = ?');
      return rows.map(({ id, status, createdAt, stoppedAt }) => {
        const known = this.#final.get(Number(id));
        if (known?.status === status) return known;
        const text = ((data.get(id) as { data?: string } | undefined)?.data ?? null) as string | null;
        const execution = {
          id: Number(id),
          status,
          createdAt: utc(createdAt),
          stoppedAt: utc(stoppedAt),
          triggerIds: eventIdsOf(text),
          endIds: status === 'success' ? this.#endIds(text) : [],
        };
        if (FINAL.has(status)) this.#final.set(execution.id, execution);
        return execution;
      });
    });
  }

  /**
   * The event ids on the trigger's saved record of unfinished executions, as n8n last saved it (at
   * the trigger's last emit). Batch Size 1: a batch's key is its event's id.
   */
  savedUnfinished(): Set<number> {
    const row = this.#read(
      (db) =>
        db.prepare('SELECT staticData FROM workflow_entity WHERE id = ?').get(this.workflowId) as
          | { staticData?: string | null }
          | undefined,
    );
    const staticData = row?.staticData ? (JSON.parse(String(row.staticData)) as Record<string, unknown>) : {};
    const ids = new Set<number>();
    for (const node of Object.values(staticData)) {
      const unfinished = (node as { position?: { unfinished?: Record<string, unknown> } })?.position
        ?.unfinished;
      for (const key of Object.keys(unfinished ?? {})) ids.add(Number(key));
    }
    return ids;
  }
}
