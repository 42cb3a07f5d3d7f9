import {
  type TaskWatch,
  type TaskWatchEvent,
  type TaskWatchOptions,
  type TaskWatchStore,
  ValidationError,
} from '@observation-service/core';
import { type EventsConfig, taskSelection } from './events-node.js';
import type { Translate } from './events-status.js';
import { withTaskWatchField } from './field-labels.js';
import { asError, codeOf } from './node-errors.js';
import type { Node } from './node-red-api.js';
import { isServerNode } from './server-node.js';
import { editorText } from './status-text.js';
import { type LastChange, watchMessage, watchStatus } from './task-watch-messages.js';

/** Settings of an `observation-task-watch` node as the editor saves them. */
export interface TaskWatchConfig extends Pick<EventsConfig, 'taskMode' | 'tasks' | 'taskIds'> {
  server?: string;
  /** Seconds between two polls of the task list. */
  intervalSeconds?: string | number;
  /** Send every watched task's status once after the first poll. */
  emitInitial?: boolean;
}

/** Core's bounds for the poll interval (1 s to 1 day), in the unit of the node's field. */
const MIN_SECONDS = 1;
const MAX_SECONDS = 86_400;
const DEFAULT_SECONDS = 30;
/** The status is refreshed from the watch's counters at most this often (and after each change). */
const STATUS_REFRESH_MS = 1_000;

/** Poll interval in ms from the editor's seconds; the error names the node's field, in seconds. */
export function intervalMs(config: TaskWatchConfig): number {
  const raw = config.intervalSeconds;
  if (raw === undefined || String(raw).trim() === '') return DEFAULT_SECONDS * 1000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    throw new ValidationError(
      'intervalSeconds',
      JSON.stringify(String(raw)),
      `a number of seconds from ${MIN_SECONDS} to ${MAX_SECONDS}`,
    );
  }
  return Math.round(seconds * 1000);
}

/**
 * Wires an `observation task-watch` node to core's task watch: one message per status
 * transition (or task added/removed), status from the watch's counters, failures to Catch, and
 * any incoming message polls at once. Polling, diffing and status parsing are core's; `store`
 * keeps the last known statuses across restarts, so changes made meanwhile are reported.
 */
export function setUpTaskWatchNode(
  node: Node,
  config: TaskWatchConfig,
  getNode: (id: string) => unknown,
  t: Translate,
  store?: TaskWatchStore,
): void {
  let watch: TaskWatch | undefined;
  let closed = false;
  let problem: unknown;
  let last: LastChange | undefined;
  let shown = '';
  // "At start" means the node's first start: after a redeploy or a restart the node has the
  // statuses it last saw, sends what changed meanwhile and does not repeat every unchanged task.
  let resumed = false;
  const watchStore: TaskWatchStore | undefined = store && {
    load: async () => {
      const stored = await store.load();
      resumed = stored !== undefined && stored !== null;
      return stored;
    },
    save: (state) => store.save(state),
  };

  const show = () => {
    if (closed || !watch) return;
    const status = watchStatus(watch.state, watch.stats, last, t);
    const key = JSON.stringify(status);
    if (key === shown) return; // the editor is only told about real changes
    shown = key;
    node.status(status);
  };
  const report = (error: unknown) => {
    if (closed) return;
    node.error(error, { topic: 'error', payload: { code: codeOf(error) } });
  };

  const start = () => {
    const server = getNode(config.server ?? '');
    if (!isServerNode(server)) throw new Error(t('observation-task-watch.errors.noServer'));
    const selection = taskSelection(config);
    const options: TaskWatchOptions = {
      intervalMs: intervalMs(config),
      emitInitial: config.emitInitial === true,
      ...(selection === 'all' ? {} : { taskIds: selection }),
      ...(watchStore ? { store: watchStore } : {}),
    };
    watch = server.client().tasks.watch(options, {
      onChange: (event: TaskWatchEvent) => {
        if (closed) return;
        if (event.type === 'initial' && resumed) return;
        if (event.type !== 'initial') {
          last = {
            taskName: event.taskName,
            state: event.current?.raw ?? t('observation-task-watch.removed'),
            at: event.at,
          };
        }
        node.send(watchMessage(event));
        show();
      },
      onError: (error) => {
        // A stored state core could not use: the watch starts afresh, as a new node does.
        if (codeOf(error) === 'TASK_WATCH_STATE_RESET') resumed = false;
        report(error);
        show();
      },
    });
  };

  // Catch and Status nodes of the flow may not exist yet while nodes are being constructed: the
  // watch starts on the next turn, so that what it reports from the start (a bad setting, a stored
  // state it cannot use) reaches them.
  let statusTimer: NodeJS.Timeout | undefined;
  const startTimer = setImmediate(() => {
    try {
      start();
    } catch (error) {
      problem = withTaskWatchField(error, t);
      node.status({ fill: 'red', shape: 'ring', text: editorText('observation-task-watch.status.error') });
      report(problem);
      return;
    }
    show();
    // The watch has no "poll finished" callback: its counters are read on a short timer instead.
    statusTimer = setInterval(show, STATUS_REFRESH_MS);
    // Joins the first check (started at once by core) to show its result without waiting for the timer.
    watch?.poll().then(show, () => undefined);
  });

  node.on('input', (_msg, _send, done) => {
    if (!watch) {
      // Not started yet (a message in the node's first turn), or it could not start.
      if (problem === undefined) done();
      else done(asError(problem));
      return;
    }
    // Check now: joins a poll in flight; the changes it finds go out as usual.
    watch.poll().then(
      () => {
        show();
        done();
      },
      (error: unknown) => done(asError(error)),
    );
  });

  node.on('close', (_removed, done) => {
    closed = true;
    clearImmediate(startTimer);
    if (statusTimer) clearInterval(statusTimer);
    node.status({});
    const held = watch;
    watch = undefined;
    (held ? held.close() : Promise.resolve()).then(done, (error: unknown) => {
      node.warn(error instanceof Error ? error.message : String(error));
      done();
    });
  });
}
