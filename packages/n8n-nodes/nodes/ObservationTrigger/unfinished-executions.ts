import type { IDataObject } from 'n8n-workflow';

/**
 * What n8n does after a kill, read in n8n 2.41's source (packages/cli): at its next start it marks
 * every execution that had not finished `crashed` (ExecutionRecoveryService, which may also put an
 * artificial item in place of the trigger's output when it rebuilds the run from its event log),
 * and never starts it again by itself. The trigger catches up the same events from its saved
 * position, but n8n refuses a second execution under the same deduplication key (a unique index;
 * emit's done promise then resolves with no run, TriggerExecutionContextFactory): the events wait
 * for a person to press Retry.
 *
 * So the trigger keeps, in the workflow's static data, the deduplication key of every execution it
 * started and n8n has not reported finished. n8n saves static data when the trigger emits, before
 * it writes the execution, so the saved list holds every execution n8n may have written and not
 * finished. After a restart (`init`) or a new leader (`leadershipChange`), a caught-up batch whose
 * key n8n refuses and that is on the list is started again under a key of a new generation
 * (`…:again<n>`): it ran not at all or not to its end. A refused batch not on the list had
 * finished: it is not run again (n8n's deduplication does that part, as before).
 *
 * The repeats this costs are bounded: only an execution that finished after the trigger's last
 * emit before the kill (its removal from the list was not saved yet), or that had done its work but
 * not been recorded finished, runs again; at most the executions unfinished at the kill (Max
 * Unfinished Executions), each event at most once more per kill. In queue mode, executions still
 * running on workers when the main dies are among them (the trigger cannot tell them apart: n8n
 * gives a trigger no way to read an execution's status).
 *
 * n8n's own Retry is not used: it is an editor action on an execution by id (no public interface a
 * trigger can call), and it reruns the recovered data, which after an event-log recovery no longer
 * holds the event.
 */

/** One execution started and not reported finished: the key it was emitted under, and when. */
interface Entry extends IDataObject {
  key: string;
  at: number;
}

/** Entries older than this are dropped at a start: a catch-up never reaches back that far. */
const maxEntryAgeMs = 24 * 60 * 60_000;

export interface UnfinishedExecutions {
  /** The key to emit a batch under first: the one its last execution had, or the plain key. */
  keyFor(batchKey: string, plainKey: string): string;
  /** Records an execution about to be emitted (before emit: n8n saves static data at the emit). */
  started(batchKey: string, key: string): void;
  /** n8n reported the batch's execution finished (or the trigger gave up on it). */
  finished(batchKey: string): void;
  /**
   * n8n refused `key` (an execution with it exists): the key to start the batch again under when
   * that execution may not have finished, or undefined when it had.
   */
  againKey(batchKey: string, key: string): string | undefined;
}

/**
 * The list in static data (`unfinished`), with what a previous run of n8n left in it. `carryOver`
 * (a resumed start with the option on) keeps that; otherwise the list starts empty. With `enabled`
 * off ("Retry by hand") nothing is recorded and nothing is started again.
 */
export function unfinishedExecutions(
  staticData: IDataObject,
  { enabled, carryOver, now = Date.now() }: { enabled: boolean; carryOver: boolean; now?: number },
): UnfinishedExecutions {
  const saved = (staticData.unfinished ?? {}) as Record<string, Entry>;
  const previous = new Map<string, Entry>();
  if (enabled && carryOver)
    for (const [batchKey, entry] of Object.entries(saved))
      if (typeof entry?.key === 'string' && now - Number(entry.at) < maxEntryAgeMs)
        previous.set(batchKey, { key: entry.key, at: Number(entry.at) });
  const current = new Map(previous);
  // n8n marks static data changed only when a property of the object it handed out is set or
  // deleted, so the list is written as a whole each time.
  const write = () => {
    if (current.size === 0) delete staticData.unfinished;
    else staticData.unfinished = Object.fromEntries(current) as IDataObject;
  };
  if (!enabled) {
    if (staticData.unfinished !== undefined) delete staticData.unfinished;
    return {
      keyFor: (_batchKey, plainKey) => plainKey,
      started: () => {},
      finished: () => {},
      againKey: () => undefined,
    };
  }
  write();
  return {
    keyFor: (batchKey, plainKey) => previous.get(batchKey)?.key ?? plainKey,
    started(batchKey, key) {
      current.set(batchKey, { key, at: Date.now() });
      write();
    },
    finished(batchKey) {
      previous.delete(batchKey);
      if (current.delete(batchKey)) write();
    },
    againKey(batchKey, key) {
      // Only a batch a previous run of n8n left unfinished, refused under the key it had then.
      if (previous.get(batchKey)?.key !== key) return undefined;
      previous.delete(batchKey);
      const generation = /:again(\d+)$/.exec(key);
      const base = generation ? key.slice(0, generation.index) : key;
      return `${base}:again${generation ? Number(generation[1]) + 1 : 1}`;
    },
  };
}
