import {
  AuthError,
  createThrottledStatus,
  type EventFilter,
  type EventMedia,
  type EventMeta,
  type ObservationEvent,
  type PositionStore,
  parseEventFilter,
  parseIdList,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionState,
  systemClock,
} from '@observation-service/core';
import { sharedAnnotator } from './annotator.js';
import { type EventsControl, readControl, selectionIds } from './events-control.js';
import { attemptFrom, eventsStatus, type Translate } from './events-status.js';
import type { Node, NodeMessage } from './node-red-api.js';
import { isServerNode, type ServerNode, type TaskSelection } from './server-node.js';

/** Settings of an `observation events` node as the editor saves them. */
export interface EventsConfig {
  server?: string;
  /** `all` tasks, tasks `pick`ed from the dropdown, or typed `ids`. */
  taskMode?: 'all' | 'pick' | 'ids';
  tasks?: Array<string | number>;
  taskIds?: string;
  eventNames?: string;
  minConfidence?: string | number;
  objectNames?: string;
  warningsOnly?: boolean;
  attachSnapshot?: boolean;
  /** Attach the snapshot with every detected object's box and label drawn on it (`msg.annotated`). */
  attachAnnotated?: boolean;
  /** Catch-up window after a redeploy or restart, in minutes; 0 turns catching up off. */
  lookBackMinutes?: string | number;
  /** Seconds an event may be published after it happened and still be caught up exactly once. */
  allowedLateness?: string | number;
  /** Seconds a fresh event's snapshot may take to appear before the event goes out without it. */
  mediaWait?: string | number;
}

/** Status refreshes at most this often while events stream in. */
const STATUS_INTERVAL_MS = 500;
const DEFAULT_LOOK_BACK_MINUTES = 60;
const DEFAULT_LATENESS_SECONDS = 120;
const DEFAULT_MEDIA_WAIT_SECONDS = 10;

/** Task selection from the editor fields; core's validator names the field and value on bad input. */
export function taskSelection(config: EventsConfig): TaskSelection {
  switch (config.taskMode ?? 'all') {
    case 'pick':
      return parseIdList((config.tasks ?? []).join(','), 'tasks');
    case 'ids':
      return parseIdList(config.taskIds ?? '', 'taskIds');
    default:
      return 'all';
  }
}

function lookBackMinutes(config: EventsConfig): number {
  const value = config.lookBackMinutes;
  if (value === undefined || value === '') return DEFAULT_LOOK_BACK_MINUTES;
  const minutes = Number(value);
  return Number.isFinite(minutes) && minutes > 0 ? minutes : 0;
}

/** The editor keeps it within 0..600; a flow edited by hand gets core's error for a bad value. */
function mediaWaitMs(config: EventsConfig): number {
  const value = config.mediaWait;
  if (value === undefined || value === '') return DEFAULT_MEDIA_WAIT_SECONDS * 1000;
  return Number(value) * 1000;
}

/** The editor keeps it within 0..3600; a flow edited by hand gets core's error for a bad value. */
function latenessMs(config: EventsConfig): number {
  const value = config.allowedLateness;
  if (value === undefined || value === '') return DEFAULT_LATENESS_SECONDS * 1000;
  return Number(value) * 1000;
}

/** Core's stable error code, when the error has one. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The error core attaches to a state change (e.g. the cause of `failed`), if any. */
function errorFrom(info: unknown): unknown {
  return typeof info === 'object' && info !== null ? (info as { error?: unknown }).error : undefined;
}

/**
 * The images core prepared, on the message; an image that did not come is named in
 * `msg.missingImages` (core reported why, once, through onError).
 */
function attachMedia(msg: NodeMessage, media: EventMedia): void {
  if (media.snapshot) {
    msg.snapshot = media.snapshot.data;
    msg.snapshotContentType = media.snapshot.contentType;
  }
  if (media.annotated) {
    msg.annotated = media.annotated.data;
    msg.annotatedContentType = media.annotated.contentType;
  }
  if (media.missing.length > 0) msg.missingImages = [...media.missing];
}

function eventMessage(event: ObservationEvent, source: 'live' | 'backfill'): NodeMessage {
  return {
    payload: event,
    topic: event.eventName,
    taskId: event.taskId,
    eventId: event.eventId,
    ...(event.locationId === undefined ? {} : { locationId: event.locationId }),
    ...(event.cameraId === undefined ? {} : { cameraId: event.cameraId }),
    source,
  };
}

/**
 * Wires an events node to its config node's client: message building (with the images core
 * prepared), control messages (`msg.action`), status. The subscription itself (reconnect,
 * catch-up, exactly-once, the filter, the images, when to save the position) is core's;
 * `position` is where the node keeps it durably.
 */
export function setUpEventsNode(
  node: Node,
  config: EventsConfig,
  getNode: (id: string) => unknown,
  t: Translate,
  position: PositionStore,
): void {
  // Catch and Status nodes of the flow may not exist yet while nodes are being constructed:
  // configuration errors are reported on the next turn so they reach them.
  const failSoon = (statusKey: string, error: unknown) => {
    const timer = setImmediate(() => {
      node.status({ fill: 'red', shape: 'ring', text: t(statusKey) });
      node.error(error, { topic: 'error', payload: { code: codeOf(error) } });
    });
    node.on('close', (_removed, done) => {
      clearImmediate(timer);
      done();
    });
  };

  const server = getNode(config.server ?? '');
  if (!isServerNode(server)) {
    failSoon('observation-events.status.noServer', new Error(t('observation-events.errors.noServer')));
    return;
  }

  let selection: TaskSelection;
  let filter: EventFilter;
  try {
    selection = taskSelection(config);
    filter = parseEventFilter(config);
  } catch (error) {
    failSoon('observation-events.status.error', error);
    return;
  }

  let subscription: Subscription | undefined;
  let closed = false;
  let paused = false;
  /** What a `subscribe` message set (shown in the status); undefined while the editor's selection holds. */
  let retargeted: { tasks: string | undefined } | undefined;
  /** The next start begins live: a `subscribe` message changed the tasks, a stream of its own. */
  let startLive = false;
  /** Control messages one after the other: each waits for the subscription the last one left. */
  let controlling: Promise<void> = Promise.resolve();
  let count = 0;
  let state: SubscriptionState = 'connecting';
  let attempt: number | undefined;
  let authFailed = false;

  const renderStatus = () => {
    node.status(
      eventsStatus(
        {
          state,
          count,
          authFailed,
          paused,
          ...(attempt === undefined ? {} : { attempt }),
          ...(retargeted ? { retargeted } : {}),
        },
        t,
      ),
    );
  };
  const status = createThrottledStatus(renderStatus, { intervalMs: STATUS_INTERVAL_MS, clock: systemClock });
  const showStatus = () => status.now();
  const showStatusSoon = () => status.request();

  const report = (error: unknown) => {
    if (closed) return;
    if (AuthError.isInstance(error)) authFailed = true;
    node.error(error, { topic: 'error', payload: { code: codeOf(error), selection } });
  };

  const send = (msg: NodeMessage) => {
    if (closed) return;
    node.send(msg);
    count += 1;
    showStatusSoon();
  };

  /**
   * Synchronous: a handler that returns no promise takes core's fast path (no promise and no
   * extra turn per event), which at tens of thousands of events per second is most of what the
   * node costs beyond Node-RED itself. Images come prepared by core (`media`), in order per task.
   */
  const deliver = (event: ObservationEvent, meta: EventMeta): undefined => {
    const msg = eventMessage(event, meta.source);
    if (meta.media) attachMedia(msg, meta.media);
    send(msg);
    return undefined;
  };

  const start = () => {
    if (closed || paused) return;
    const minutes = lookBackMinutes(config);
    // Core decides when to save the position (where to resume, what was already sent); the node
    // keeps it durably, on a default install too. 0 minutes means every start is live.
    const options: SubscribeOptions = {
      allowedLatenessMs: latenessMs(config),
      filter,
      ...(config.attachSnapshot || config.attachAnnotated
        ? {
            media: {
              snapshot: Boolean(config.attachSnapshot),
              annotated: Boolean(config.attachAnnotated),
              waitMs: mediaWaitMs(config),
              annotate: sharedAnnotator(),
            },
          }
        : {}),
      ...(minutes > 0
        ? {
            // After a change of tasks the stored position is the old selection's: the new one
            // starts live, and its own position replaces the old one from then on.
            position: startLive ? { load: () => undefined, save: (value) => position.save(value) } : position,
            lookBackMs: minutes * 60_000,
            maxLookBackMs: minutes * 60_000,
          }
        : {}),
    };
    startLive = false;
    try {
      subscription = server.subscribe(
        selection,
        {
          onEvent: (event, meta) => {
            if (closed) return;
            return deliver(event, meta);
          },
          onStateChange: (next, info) => {
            state = next;
            attempt = next === 'reconnecting' ? attemptFrom(info) : undefined;
            if (next === 'open') authFailed = false;
            if (AuthError.isInstance(errorFrom(info))) authFailed = true;
            showStatus();
          },
          onError: report,
        },
        options,
      );
    } catch (error) {
      state = 'failed';
      showStatus();
      report(error);
    }
  };

  /** Closes the running subscription; closing saves its position a last time. */
  const stop = async () => {
    const held = subscription;
    subscription = undefined;
    await held?.close();
  };

  /**
   * `msg.action`: `pause` stops listening (the position is kept), `resume` listens again and
   * catches up what was published meanwhile (within the look-back), `subscribe` changes the
   * tasks and/or filters (a change of tasks starts live, a filter alone resumes from the position).
   */
  node.on('input', (msg, _send, done) => {
    let control: EventsControl;
    try {
      control = readControl(msg);
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const step = controlling.then(async () => {
      if (closed) return;
      if (control.action === 'pause') {
        paused = true;
        await stop();
      } else if (control.action === 'resume') {
        if (!paused) return;
        paused = false;
        start();
      } else {
        if (
          control.selection !== undefined &&
          JSON.stringify(control.selection) !== JSON.stringify(selection)
        ) {
          selection = control.selection;
          startLive = true;
        }
        if (control.filter !== undefined) filter = control.filter;
        retargeted = { tasks: selectionIds(selection) };
        await stop();
        // A paused node takes the new selection and stays paused until `resume`.
        if (!paused) start();
      }
      showStatus();
    });
    // The next message waits for this one whatever its outcome.
    controlling = step.catch(() => undefined);
    step.then(
      () => done(),
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });

  // Started on the next turn, like the error reports above, so that everything it reports
  // (states, a config core refuses) reaches the flow's Status and Catch nodes.
  const startTimer = setImmediate(() => {
    showStatus();
    start();
  });

  node.on('close', (_removed, done) => {
    closed = true;
    clearImmediate(startTimer);
    status.close();
    node.status({});
    // After a control message still being handled; closing saves the position a last time.
    controlling.then(stop).then(done, (error: unknown) => {
      node.warn(error instanceof Error ? error.message : String(error));
      done();
    });
  });
}

export type { ServerNode };
