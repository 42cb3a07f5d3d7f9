import {
  type EventFilter,
  type GivenUp,
  ObservationError,
  type PositionStore,
  parseEventFilter,
  type Subscription,
} from '@observation-service/core';
import { eventMessage, givenUpMessage, givenUpText } from './event-message.js';
import { type AckSettings, ackSettings, closeDrainMs } from './events-ack.js';
import { cooldownOption, type EventsConfig, subscribeOptions, taskSelection } from './events-config.js';
import { type EventsControl, readControl, selectionIds } from './events-control.js';
import { EventsShown } from './events-shown.js';
import type { Translate } from './events-status.js';
import { withEventsField } from './field-labels.js';
import { FlowDone, type MessagingHooks, nodeLabel } from './flow-done.js';
import { asError, codeOf } from './node-errors.js';
import type { Node } from './node-red-api.js';
import { isServerNode, type ServerNode, type TaskSelection } from './server-node.js';

export type { EventsConfig } from './events-config.js';

/** How often the status shows core's held-back count while a cooldown is on. */
const HELD_REFRESH_MS = 5_000;

export { taskSelection } from './events-config.js';

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
    cooldownOption(config);
  } catch (error) {
    failSoon('observation-events.status.error', withEventsField(error, t));
    return;
  }

  let subscription: Subscription | undefined;
  /** Why core refused to subscribe (a server config it cannot use): control messages get it too. */
  let refused: Error | undefined;
  let closed = false;
  const report = (error: unknown) => {
    if (closed) return;
    node.error(error, { topic: 'error', payload: { code: codeOf(error), selection } });
  };
  // "When the flow is done": events in the flow or waiting for it, as core counts them.
  const shown = new EventsShown(node, t, report, () => {
    const stats = subscription?.stats;
    return {
      waiting: stats && flow ? stats.queued + stats.inFlight : 0,
      heldBack: stats?.heldBack ?? 0,
      givenUp: stats?.givenUp ?? 0,
    };
  });
  // Held-back events reach no handler: the ring catches up with core's count every few seconds.
  const cooling = config.cooldownMinutes !== undefined && Number(config.cooldownMinutes) > 0;
  const heldTimer = cooling ? setInterval(() => shown.request(), HELD_REFRESH_MS) : undefined;

  /**
   * Core gave up on an event (failed on its last attempt, or at once with "let it go"): one warning
   * per event in Node-RED's log and the debug sidebar, and with "Given up" ticked the event's
   * message on the second output, to be kept and replayed. Catch already heard each attempt.
   */
  const givenUp = (given: GivenUp) => {
    if (closed) return;
    shown.request();
    given.events.forEach((event, index) => {
      const meta = given.metas[index];
      if (!meta) return;
      node.warn(givenUpText(event, given, Boolean(config.givenUpOutput), t));
      if (config.givenUpOutput) node.send([null, givenUpMessage(event, meta, given)]);
    });
  };
  // "When the flow is done": Node-RED's messaging hooks say when the flow finished with an event's
  // messages; core keeps the deadline, the attempts and the position.
  const flow = ack.mode === 'done' ? new FlowDone(hooks, () => shown.request()) : undefined;

  // Started on the next turn, like the error reports above, so that everything it reports
  // (states, a config core refuses) reaches the flow's Status and Catch nodes. Control messages
  // that come sooner wait for it.
  let started!: () => void;
  const starting = new Promise<void>((resolve) => {
    started = resolve;
  });
  const startTimer = setImmediate(() => {
    started();
    shown.now();
    try {
      subscription = server.subscribe(
        selection,
        {
          // "When sent": synchronous, so core takes its fast path (no promise and no extra turn
          // per event), most of what the node costs beyond Node-RED itself. "When the flow is
          // done": the promise is the acknowledgement core's delivery queue waits for.
          onEvent: (event, meta, signal) => {
            if (closed) return;
            shown.count += 1;
            shown.request();
            if (!flow) return node.send(eventMessage(event, meta));
            return flow.send(eventMessage(event, meta), (msg) => node.send(msg), signal, event.id);
          },
          onStatus: (status) => shown.changed(status),
          // Why the stream is down, and when it is back: core tells each once per outage.
          onOutage: (outage) => shown.outage(outage),
          onRecovered: (recovery) => shown.recovered(recovery),
          onGiveUp: givenUp,
          // A node that failed with an event already told Catch itself (naming the node): the log
          // only says what became of the event.
          onError: (error) => {
            const code = codeOf(error);
            // Given up: `onGiveUp` warns once per event, with what became of it.
            if (code === 'HANDLER_GAVE_UP') return;
            if (code === 'HANDLER_ERROR' && flow) node.log(error.message);
            else if (code === 'HANDLER_TIMEOUT' && flow) report(whereLate(error, flow, t));
            else report(error);
          },
        },
        subscribeOptions(config, filter, position, ack),
      );
    } catch (error) {
      refused = asError(withEventsField(error, t));
      shown.status = { state: 'failed' };
      shown.now();
      report(refused);
    }
  });

  /**
   * An event's message back at the input (a complete node wired back, as flows of the first
   * "when the flow is done" did) is simply done: the hooks already counted it. `msg.action`:
   * `pause` stops listening (the position is kept), `resume` listens again and catches up what was
   * published meanwhile (within the look-back), `subscribe` changes the tasks and/or filters (a
   * change of tasks starts live, a filter alone resumes from the position).
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
            shown.retargeted = { tasks: selectionIds(selection) };
          });
      })
      .then(
        () => {
          shown.now();
          done();
        },
        (error: unknown) => done(asError(error)),
      );
  });

  node.on('close', (_removed, done) => {
    closed = true;
    clearImmediate(startTimer);
    if (heldTimer) clearInterval(heldTimer);
    shown.close();
    node.status({});
    // After a control message still being handled; closing saves the position a last time. Node-RED
    // closes every node of the flow at once: what its nodes finish meanwhile (a file node writing
    // what it holds) still counts, so a redeploy or a restart does not send it again.
    flow?.stopping();
    const closing = subscription?.close({ drainMs: closeDrainMs }) ?? Promise.resolve();
    closing
      .catch((error: unknown) => node.warn(asError(error).message))
      .finally(() => {
        flow?.close();
        done();
      });
  });
}

/**
 * A late event's report, with the nodes that hold its message now (a join waiting for its group,
 * a delay's queue) and what to change: "did not finish within" alone reads as if the flow were
 * stuck, and a join that holds events longer than Done within gets each of them again.
 */
function whereLate(error: Error, flow: FlowDone, t: Translate): Error {
  const ids = ObservationError.isInstance(error) ? (error.eventIds ?? []) : [];
  const holders = new Set(ids.flatMap((id) => flow.waitingAt(id)));
  if (holders.size === 0) return error;
  const nodes = [...holders].map(nodeLabel);
  const explained = new Error(
    `${error.message}. ${t('observation-events.errors.heldBy', { nodes: nodes.join(', ') })}`,
    {
      cause: error,
    },
  );
  explained.name = error.name;
  return Object.assign(explained, { code: codeOf(error) });
}

export type { ServerNode };
