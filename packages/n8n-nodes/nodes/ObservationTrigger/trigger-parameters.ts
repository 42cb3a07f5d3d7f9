import {
  type EventFilter,
  type PositionStore,
  parseEventFilter,
  type SubscribeOptions,
  type TaskSelection,
  ValidationError,
} from '@observation-service/core/portable';
import type { IDataObject, ITriggerFunctions, WorkflowActivateMode } from 'n8n-workflow';
import { readTaskSelection } from '../../shared/task-selection';
import { readCooldown, readRunAgain } from './alert-options';

/** Longest catch-up look-back the node allows (the service keeps history, but a flood helps nobody). */
export const maxCatchUpMinutes = 24 * 60;
/** Longest allowed lateness the node offers: an hour of re-reading at every reconnect is plenty. */
export const maxLatenessSeconds = 3600;
/** Most events in one execution: beyond this one execution's items get unwieldy in n8n's editor. */
export const maxBatchSize = 1000;
/** Longest wait for a batch to fill: ten minutes between a camera event and its workflow is plenty. */
export const maxBatchWaitMs = 600_000;
/**
 * Executions unfinished before the trigger waits: a few times what a worker fleet runs at once.
 * n8n has no backpressure of its own; at 200 events/s into workers that finish 25 executions/s,
 * its main piled up thousands of executions until its database pool timed out.
 */
export const defaultMaxUnfinished = 100;
export const maxUnfinishedLimit = 10_000;
/** Longest snapshot wait the node offers (core's own limit is 600 s). */
export const maxSnapshotWaitSeconds = 600;

export interface TriggerSettings {
  selection: TaskSelection;
  filter: EventFilter;
  attachSnapshot: boolean;
  /** How long a fresh event's snapshot may take to appear before the event goes out without it. */
  snapshotWaitMs: number;
  binaryPropertyName: string;
  catchUp: boolean;
  maxLookBackMs: number;
  allowedLatenessMs: number;
  /** Events per execution (1: one execution per event). */
  batchSize: number;
  /** How long a batch waits for more events after its first one. */
  batchWaitMs: number;
  /** Executions started and not finished before the trigger waits. */
  maxUnfinished: number;
  /** Start again an execution n8n failed because its queue-mode worker died. */
  rerunLostExecutions: boolean;
  /**
   * After n8n's own restart or a new leader: start again the events of executions n8n did not
   * finish (at least once), instead of leaving them for Retry by hand (exactly once).
   */
  rerunUnfinished: boolean;
  /** At most one execution per key every `ms` (core decides; undefined: off). */
  cooldown: SubscribeOptions['cooldown'];
  /** Pauses before each new execution of a failed one (undefined: a failed execution is done). */
  runAgainPausesMs: readonly number[] | undefined;
}

/** The "Unfinished Executions After a Restart" option's values; the first is the default. */
export const afterRestartChoices = ['runAgain', 'retryByHand'] as const;

/** Reads the trigger's parameters; ids and filters are checked by core (same messages as Node-RED). */
export function readTriggerSettings(context: ITriggerFunctions): TriggerSettings {
  const selection: TaskSelection = readTaskSelection(context);
  const filters = context.getNodeParameter('filters', {}) as IDataObject;
  const options = context.getNodeParameter('options', {}) as IDataObject;
  const minutes = wholeNumber(options.maxLookBackMinutes, 'Max Catch-Up (Minutes)', 60, 1, maxCatchUpMinutes);
  return {
    selection,
    filter: parseEventFilter(
      {
        eventNames: filters.eventNames as string[] | string | undefined,
        objectNames: filters.objectNames as string | undefined,
        minConfidence: filters.minConfidence as number | undefined,
        warningsOnly: filters.warningsOnly === true,
      },
      { eventNames: 'Event Names or IDs', objectNames: 'Object Names', minConfidence: 'Minimum Confidence' },
    ),
    attachSnapshot: options.attachSnapshot === true,
    snapshotWaitMs:
      wholeNumber(options.snapshotWaitSeconds, 'Snapshot Wait (Seconds)', 10, 0, maxSnapshotWaitSeconds) *
      1000,
    binaryPropertyName: (options.binaryPropertyName as string | undefined) || 'data',
    catchUp: options.catchUp === true,
    maxLookBackMs: minutes * 60_000,
    allowedLatenessMs:
      wholeNumber(options.allowedLatenessSeconds, 'Late Events (Seconds)', 120, 0, maxLatenessSeconds) * 1000,
    batchSize: wholeNumber(options.batchSize, 'Batch Size', 1, 1, maxBatchSize),
    batchWaitMs: wholeNumber(options.batchWaitMs, 'Batch Wait (Milliseconds)', 1000, 1, maxBatchWaitMs),
    maxUnfinished: wholeNumber(
      options.maxUnfinished,
      'Max Unfinished Executions',
      defaultMaxUnfinished,
      1,
      maxUnfinishedLimit,
    ),
    rerunLostExecutions: options.rerunLostExecutions === true,
    rerunUnfinished: afterRestart(options.afterRestart) === 'runAgain',
    cooldown: readCooldown(options),
    runAgainPausesMs: readRunAgain(options),
  };
}

/** The "Unfinished Executions After a Restart" option (an expression may give anything). */
function afterRestart(value: unknown): (typeof afterRestartChoices)[number] {
  if (value === undefined || value === null || value === '') return 'runAgain';
  const found = afterRestartChoices.find((choice) => choice === value);
  if (found) return found;
  throw new ValidationError(
    'Unfinished Executions After a Restart',
    typeof value === 'string' ? `"${value.slice(0, 40)}"` : String(value),
    `one of ${afterRestartChoices.map((choice) => `"${choice}"`).join(', ')}`,
  );
}

/** A whole-number option typed by the user (or an expression), checked with a message naming it. */
function wholeNumber(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    const given = typeof value === 'string' ? `"${value.slice(0, 40)}"` : String(value);
    throw new ValidationError(field, given, `a whole number from ${min} to ${max}`);
  }
  return number;
}

/**
 * Whether this activation resumes from the saved position. n8n's own restarts (`init`) and a new
 * leader taking over (`leadershipChange`) always do: the events of that downtime are the user's.
 * An activation or update by the user resumes only with "Catch Up on Missed Events".
 */
export function resumes(mode: WorkflowActivateMode, settings: TriggerSettings): boolean {
  return settings.catchUp || restartedByN8n(mode);
}

/**
 * n8n's own restart or a new leader: what the previous process left unfinished may have been cut
 * off (a kill, an OOM, a lost leader). A user's activation follows a deactivation, after which
 * n8n let the executions already started run to their end.
 */
export function restartedByN8n(mode: WorkflowActivateMode): boolean {
  return mode === 'init' || mode === 'leadershipChange';
}

/**
 * Where the trigger keeps core's position: the workflow's static data, which n8n saves with each
 * execution. Core always writes it; whether a start reads it is `resumes`'s answer.
 */
export function staticDataPositionStore(staticData: IDataObject): PositionStore {
  return {
    // Earlier versions kept a `{ time, id }` cursor; core migrates it once.
    load: () => staticData.position ?? staticData.cursor,
    save(position) {
      staticData.position = position as unknown as IDataObject;
      delete staticData.cursor;
    },
  };
}

/**
 * Subscribe options for production: core batches (size and wait on its clock), filters, bounds
 * the executions in flight and moves the position past finished executions only (saved at most
 * once a second; n8n writes static data to its database with the next emit); a resumed start
 * catches up from the stored position (or, when that cannot be used, from the look-back).
 *
 * What n8n does after a kill, read in n8n 2.41's source (packages/cli): at its next start it marks
 * every execution that had not finished `crashed` and never starts it again by itself. The
 * trigger catches up the same events from its saved position, but n8n refuses a second execution
 * under the same deduplication key (emit's done promise then resolves with no run): without more,
 * the events would wait for a person to press Retry.
 *
 * So with "Run Their Events Again" core keeps in the position the batches handed over and not
 * acknowledged (`unfinished`), written before each hand-over: n8n saves static data when the
 * trigger emits, before it writes the execution, so what n8n saved lists every execution it may
 * have written and not finished. After n8n's own restart or a new leader (`rerun`), core hands
 * those over again on their next attempt, and the attempt is in the key (`executionKey`), so n8n
 * starts them. A batch caught up again and not on the list comes on attempt 1: n8n refuses it
 * when its execution exists (it finished), and runs it when n8n never wrote it. One that finished
 * on a later attempt stays on the list, marked finished, until the position is saved past it, and
 * comes on that attempt: n8n refuses it too (its attempt-1 execution may be one a kill left
 * unstarted, whose key n8n gives out again).
 *
 * The repeats this costs are bounded: only an execution that finished after the trigger's last
 * emit before the stop (its end was not saved yet), or that had done its work but not been
 * recorded finished, runs again; at most the executions unfinished at the stop (Max Unfinished
 * Executions), once more per stop. In queue mode, executions still running on workers when the
 * main dies are among them (n8n gives a trigger no way to read an execution's status). A user's
 * activation (`record`) does not rerun what the previous one left: n8n let those finish.
 *
 * With "Leave Them for Retry" nothing is recorded, every batch comes on attempt 1, and n8n's
 * deduplication leaves what it crashed to Retry. n8n's own Retry is not used by the trigger: it is
 * an editor action on an execution by id, and it reruns the recovered data, which after an
 * event-log recovery no longer holds the event.
 */
export function subscribeOptions(
  settings: TriggerSettings,
  {
    store,
    resume,
    restarted,
    storeShared = false,
  }: { store: PositionStore; resume: boolean; restarted: boolean; storeShared?: boolean },
): SubscribeOptions {
  // Nodes after the trigger that save static data can leave it without the trigger's key (n8n's
  // task runner hands a Code node's copy back whole, and the execution saves it whole): measured
  // in the e2e's crash test, a restart then found no position and started live, and every event
  // of the downtime was lost. So in such a workflow an n8n restart that finds none catches up Max
  // Catch-Up instead (at least once: n8n refuses what it already ran).
  const lostIfMissing = restarted && storeShared;
  return {
    filter: settings.filter,
    // Core downloads the snapshots of the executions in flight side by side (waiting for a fresh
    // one) and hands each batch over in order, with its images or a flag saying which is missing.
    ...(settings.attachSnapshot ? { media: { snapshot: true, waitMs: settings.snapshotWaitMs } } : {}),
    batch: { size: settings.batchSize, waitMs: settings.batchWaitMs },
    maxInFlight: settings.maxUnfinished,
    allowedLatenessMs: settings.allowedLatenessMs,
    position: {
      store,
      resume,
      ...(settings.rerunUnfinished && { unfinished: restarted ? 'rerun' : 'record' }),
      ...(lostIfMissing && { ifMissing: 'look-back' }),
    },
    lookBackMs: settings.catchUp || lostIfMissing ? settings.maxLookBackMs : 0,
    maxLookBackMs: settings.maxLookBackMs,
    // An execution is done when n8n says so, however long it queues and runs (a workflow may
    // wait for hours): core's longest deadline, after which it is let go, never started a second
    // time beside itself. An execution n8n could not start, or (with Re-Run Executions Lost with
    // a Worker) lost with its worker, is handed over again by core, up to `maxReruns` times more.
    //
    // With Run Failed Executions Again, an execution that ended in error fails too, and core
    // starts the next one after each pause (those pauses then also space the reruns above).
    ack: {
      deadlineMs: maxExecutionWaitMs,
      attempts: maxReruns + 1,
      onFailure: 'retry',
      onLate: 'release',
      // The reports name the workflow, not core's handler: "the workflow failed for event 8713".
      handlerLabel: 'the workflow',
      ...(settings.runAgainPausesMs ? { retryPausesMs: [...settings.runAgainPausesMs] } : {}),
    },
    ...(settings.cooldown ? { cooldown: settings.cooldown } : {}),
  };
}

/** Core's longest acknowledgement deadline: a day. */
const maxExecutionWaitMs = 86_400_000;
/** How often one batch is started again after n8n failed it (a worker that keeps dying is not helped by more). */
const maxReruns = 3;
