import {
  AuthError,
  createThrottledStatus,
  type EventFilter,
  type PositionStore,
  parseEventFilter,
  type StateChangeInfo,
  type Subscription,
  type SubscriptionState,
  systemClock,
} from '@observation-service/core';
import { connectDetail, connectReason } from './connect-reason.js';
import { eventMessage } from './event-message.js';
import { type AckSettings, ackSettings } from './events-ack.js';
import { type EventsConfig, subscribeOptions, taskSelection } from './events-config.js';
import { type EventsControl, readControl, selectionIds } from './events-control.js';
import { eventsStatus, type Translate } from './events-status.js';
import { withEventsField } from './field-labels.js';
import { FlowDone, type MessagingHooks } from './flow-done.js';
import { asError, codeOf } from './node-errors.js';
import type { Node } from './node-red-api.js';
import { isServerNode, type ServerNode, type TaskSelection } from './server-node.js';

export type { EventsConfig } from './events-config.js';
export { taskSelection } from './events-config.js';

/** Status refreshes at most this often while events stream in. */
const STATUS_INTERVAL_MS = 500;

/**
 * Binds an events node to a core subscription of its config node's client: the node keeps the
 * position durably (`position`), turns each event into a message, passes control messages
 * (`msg.action`) on to core's pause, resume and retarget, and shows the state. Everything else
 * (reconnect, catch-up, exactly-once, the filter, the images, when to save) is core's.
 */
export function setUpEventsNode(
  node: Node,
  config: EventsConfig,
  getNode: (id: string) => unknown,
  t: Translate,
  position: PositionStore,
  hooks: MessagingHooks,
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
  let ack: AckSettings;
  try {
    selection = taskSelection(config);
    filter = parseEventFilter(config);
    ack = ackSettings(config);
  } catch (error) {
    failSoon('observation-events.status.error', withEventsField(error, t));
    return;
  }

  let subscription: Subscription | undefined;
  /** Why core refused to subscribe (a server config it cannot use): control messages get it too. */
  let refused: Error | undefined;
  let closed = false;
  let count = 0;
  let state: SubscriptionState = 'connecting';
  let info: StateChangeInfo = {};
  let authFailed = false;
  /**
   * Why the node cannot reach the service, short, since it last connected (a wrong address, a
   * refused connection); undefined once it connects. Reported to Catch once per such spell,
   * however often core retries, as core's mqtt and http request nodes do.
   */
  let unreachable: string | undefined;
  /** What a `subscribe` message set (shown in the status); undefined while the editor's selection holds. */
  let retargeted: { tasks: string | undefined } | undefined;

  const status = createThrottledStatus(
    () => {
      const attempt = state === 'reconnecting' ? info.attempt : undefined;
      const shown = {
        state,
        count,
        authFailed,
        ...(attempt === undefined ? {} : { attempt }),
        ...(unreachable === undefined ? {} : { unreachable }),
      };
      // "When the flow is done": events out in the flow or waiting for it, as core counts them.
      const stats = flow && subscription?.stats;
      const waiting = stats ? stats.queued + stats.inFlight : 0;
      node.status(eventsStatus({ ...shown, waiting, ...(retargeted ? { retargeted } : {}) }, t));
    },
    { intervalMs: STATUS_INTERVAL_MS, clock: systemClock },
  );

  // "When the flow is done": Node-RED's messaging hooks say when the flow finished with an event's
  // messages; core keeps the deadline, the attempts and the position.
  const flow = ack.mode === 'done' ? new FlowDone(hooks, ack.maxInFlight, () => status.request()) : undefined;

  const report = (error: unknown) => {
    if (closed) return;
    if (AuthError.isInstance(error)) authFailed = true;
    node.error(error, { topic: 'error', payload: { code: codeOf(error), selection } });
  };

  /** The service cannot be reached (yet): a red ring with the reason; Catch hears it once. */
  const cannotConnect = (error: Error) => {
    const first = unreachable === undefined;
    unreachable = connectReason(error);
    status.now();
    // The debug sidebar shows a message's start: the reason as the ring says it, then the request
    // that failed and its address; what core was doing is the cause.
    if (first) {
      const reason = t('observation-events.status.cannotConnect', { reason: unreachable });
      const detail = connectDetail(error);
      report(Object.assign(new Error(`${reason}: ${detail}`, { cause: error }), { code: codeOf(error) }));
    }
  };

  // Started on the next turn, like the error reports above, so that everything it reports
  // (states, a config core refuses) reaches the flow's Status and Catch nodes. Control messages
  // that come sooner wait for it.
  let started!: () => void;
  const starting = new Promise<void>((resolve) => {
    started = resolve;
  });
  const startTimer = setImmediate(() => {
    started();
    status.now();
    try {
      subscription = server.subscribe(
        selection,
        {
          // "When sent": synchronous, so core takes its fast path (no promise and no extra turn
          // per event), most of what the node costs beyond Node-RED itself. "When the flow is
          // done": the promise is the acknowledgement core's delivery queue waits for.
          onEvent: (event, meta) => {
            if (closed) return;
            count += 1;
            status.request();
            if (!flow) return node.send(eventMessage(event, meta));
            return flow.send(eventMessage(event, meta), (msg) => node.send(msg));
          },
          onStateChange: (next, nextInfo) => {
            state = next;
            info = nextInfo;
            if (next === 'open') {
              authFailed = false;
              unreachable = undefined;
            }
            if (AuthError.isInstance(nextInfo.error)) authFailed = true;
            // Never connected yet and core says why: the address or the network is wrong.
            if (next === 'connecting' && nextInfo.error && !AuthError.isInstance(nextInfo.error)) {
              cannotConnect(nextInfo.error);
              return;
            }
            status.now();
          },
          // A task list core cannot read is retried by core every few seconds: reported once. A
          // node that failed with an event already told Catch itself (naming the node): the log
          // only says what became of the event.
          onError: (error) => {
            const code = codeOf(error);
            if (code === 'TASK_LIST_FAILED') cannotConnect(error);
            else if (code === 'HANDLER_ERROR' && flow) node.log(error.message);
            else report(error);
          },
        },
        subscribeOptions(config, filter, position, ack),
      );
    } catch (error) {
      refused = asError(withEventsField(error, t));
      state = 'failed';
      status.now();
      report(refused);
    }
  });

  /**
   * An event's message back at the input (a complete node wired back, as flows of the first
   * "when the flow is done" did) is simply done: the hooks already counted it. `msg.action`: `pause` stops listening (the position is kept), `resume` listens again and
   * catches up what was published meanwhile (within the look-back), `subscribe` changes the
   * tasks and/or filters (a change of tasks starts live, a filter alone resumes from the position).
   */
  node.on('input', (msg, _send, done) => {
    if (flow?.ours(msg)) {
      done();
      return;
    }
    let control: EventsControl;
    try {
      control = readControl(msg);
    } catch (error) {
      done(asError(error));
      return;
    }
    starting
      .then(() => {
        if (!subscription) throw refused ?? new Error(t('observation-events.errors.noServer'));
        if (control.action === 'pause') return subscription.pause();
        if (control.action === 'resume') return subscription.resume();
        const { selection: tasks, filter: changed } = control;
        return subscription
          .retarget({
            ...(tasks === undefined ? {} : { selection: tasks }),
            ...(changed ? { filter: changed } : {}),
          })
          .then(() => {
            // Shown once core took it (and said it is connecting again), never before.
            if (tasks !== undefined) selection = tasks;
            retargeted = { tasks: selectionIds(selection) };
          });
      })
      .then(
        () => {
          status.now();
          done();
        },
        (error: unknown) => done(asError(error)),
      );
  });

  node.on('close', (_removed, done) => {
    closed = true;
    clearImmediate(startTimer);
    flow?.close();
    status.close();
    node.status({});
    // After a control message still being handled; closing saves the position a last time.
    (subscription?.close() ?? Promise.resolve()).then(done, (error: unknown) => {
      node.warn(asError(error).message);
      done();
    });
  });
}

export type { ServerNode };
