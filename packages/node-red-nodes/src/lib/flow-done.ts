import { randomBytes } from 'node:crypto';
import type { NodeMessage } from './node-red-api.js';

/** The part of `RED.hooks` (Node-RED's messaging hooks) this file uses. */
export interface MessagingHooks {
  add(hookId: string, callback: (event: never) => void): void;
  remove(hookId: string): void;
}

/** A node as the hooks hand it over; `_expectedDoneCount` is the runtime's count of `done`-taking input handlers. */
interface RuntimeNode {
  id: string;
  type: string;
  name?: string;
  wires?: string[][];
  _expectedDoneCount?: number;
}
interface Delivery {
  msg: NodeMessage;
  source?: { node?: RuntimeNode };
  destination: { node: RuntimeNode };
}
interface Completion {
  msg: NodeMessage;
  error?: unknown;
  node: { node: RuntimeNode };
}

/** One event message out in the flow. */
interface Tracked {
  id: string;
  /** The event's record id, when the events node gave it (see `waitingAt`). */
  recordId: number | undefined;
  /** Deliveries of its messages not yet finished by the node that got them. */
  count: number;
  /** The first node that ended a message of it with an error. */
  failure: Error | undefined;
  /** Out when its node began to close: see `stopping`. */
  stopping: boolean;
  /** Events a node merged into a message of this one (see `carrier`): finished when this one is. */
  riders: Tracked[];
  /** The event whose message carries this one's on (a join's), once merged. */
  ridesOn: Tracked | undefined;
  /** The nodes (that call `done`) holding its messages now, by how many. */
  holders: Map<RuntimeNode, number>;
  settle(failure: Error | undefined): void;
}

/**
 * The event's id on its message besides `_msgid`: Node-RED's cloning copies every property, and
 * the split node keeps it on the parts (it gives them fresh `_msgid`s), so the join's message
 * carries it too. The name is the first version's, which flows already keep.
 */
export const EVENT_PROPERTY = '_observationAck';

/** Labels the hooks so they are added once per runtime and removed by name. */
const LABEL = 'observationEventsDone';
const HOOKS = ['preDeliver', 'onComplete'] as const;

/** The books of one runtime (one `RED.hooks`): shared by every events node in "when the flow is done". */
interface Runtime {
  users: number;
  hooks: MessagingHooks;
  /** The hooks' callbacks, made once; added while an event is out (see `track`). */
  callbacks: Record<(typeof HOOKS)[number], (event: never) => void>;
  hooked: boolean;
  events: Map<string, Tracked>;
  /**
   * Message objects delivered to a node that calls `done` (counted in `preDeliver`), by how many
   * times, until that node completes them. A node's `onComplete` for any other object (the copies
   * the runtime hands complete and catch nodes directly) is not ours to count.
   */
  counted: WeakMap<object, number>;
  /** Per node without `done`: its receipts, finished one per turn (see `doneless`). */
  doneless: Map<RuntimeNode, Tracked[]>;
  /**
   * The event of the message each node sent last in the code running now (cleared once it has
   * run): a node that completes an event's message right after sending another event's message
   * has made one message of several, as the join does (see `carrier`).
   */
  sentNow: Map<RuntimeNode, Tracked>;
}
const runtimes = new WeakMap<MessagingHooks, Runtime>();

/**
 * "When the flow is done", bound to Node-RED's own notion of done. Each event's message gets a
 * `_msgid` of ours, and the same id in `_observationAck`. Node-RED copies both into every clone; a
 * function node gives the `_msgid` to the messages it creates (delivered, they get the other one
 * too), a split node keeps the other on its parts (and so the join on what it joins). A delivery
 * of such a message to a node counts one (`preDeliver`); that node finishing with it
 * (`onComplete`, which `done()` triggers) counts it off. At zero the event is finished: sent on to
 * the end, dropped by a filter, or ended with an error (the first node that failed is named).
 * Core's deadline covers what never finishes: when core stops waiting for an attempt it aborts the
 * attempt's signal, and the event's messages are no longer counted, unless a node still holds one
 * (a join waiting for its group): a next attempt takes that copy up rather than sending the event
 * again beside it. What the runtime hands complete and catch nodes directly is not part of the
 * event (a complete node wired back to the events node changes nothing).
 *
 * A node whose input handler takes no `done` (switch, rbe, nodes written for Node-RED 0.x) never
 * completes a message: it counts as finished a turn after it received it (its handler has run by
 * then), one per turn in the order received, as the switch works through the messages that arrive
 * while it is busy. What such a node sends later is not waited for. Messages a node creates afresh
 * with a `_msgid` of its own (not a function node) are not tracked either.
 *
 * A node that makes one message of several (the join: it sends the message it made, then
 * completes the messages it made it from) hands on only the first event's ids. An event whose
 * message a node completes right after it sent a message of another event rides on that one: it is
 * finished when that one is, failed if that one failed. So no event counts as done while the
 * message made from it is still on its way (the join's other events did, and a kill then lost
 * them). This needs the hooks of the runtime to run synchronously, as Node-RED runs hooks that take
 * one argument (a hook of another package returning a promise would defer the delivery).
 *
 * The two hooks run for every message of the runtime while an event of such a node is out in the
 * flow, and return after one map lookup for a message that is not ours. Node-RED's own hook
 * machinery costs every message about 5 % of its CPU in a websocket → json flow (measured apart),
 * so they are added when the first event goes out and removed when the last one is finished: flows
 * that do not use our nodes pay nothing while no event is out.
 */
export class FlowDone {
  /** Random per node instance: a message of an earlier deploy, or of another node, is not ours. */
  readonly prefix = `obs-${randomBytes(6).toString('hex')}-`;
  #next = 0;
  /** This node's events out, until finished or let go by core (each attempt's signal). */
  readonly #mine = new Set<Tracked>();
  /** This node's latest message out per event record id: where a late event waits. */
  readonly #byRecord = new Map<number, Tracked>();
  readonly #runtime: Runtime;
  #closed = false;

  constructor(
    private readonly hooks: MessagingHooks,
    /** An event finished (the status shows what waits). */
    private readonly finished: () => void,
  ) {
    this.#runtime = attach(hooks);
  }

  /** True for an event message of this node coming back to its input (not a control message). */
  ours(msg: NodeMessage): boolean {
    if (msg.action !== undefined) return false;
    const id = msg[EVENT_PROPERTY] ?? msg._msgid;
    return typeof id === 'string' && id.startsWith(this.prefix);
  }

  /**
   * Sends the event's message; resolves when the flow finished with it, rejects naming the node
   * that failed. `signal`: the attempt's, from core (see `#stoppedWaiting`). `recordId`: the
   * event's, for `waitingAt`. An attempt of an event whose earlier message a node still holds (a
   * join waiting for its group, a delay) sends nothing: it waits for that copy, which carries the
   * event on, instead of running the flow again beside it (the join would hold the event twice).
   */
  send(
    msg: NodeMessage,
    send: (msg: NodeMessage) => void,
    signal: AbortSignal,
    recordId?: number,
  ): Promise<void> {
    const held = recordId === undefined ? undefined : this.#heldCopy(recordId);
    return new Promise<void>((resolve, reject) => {
      const settle = (tracked: Tracked) => (failure: Error | undefined) => {
        this.#forget(tracked);
        this.finished();
        if (failure) reject(failure);
        else resolve();
      };
      if (held !== undefined) {
        held.settle = settle(held);
        signal.addEventListener('abort', () => this.#stoppedWaiting(held), { once: true });
        return;
      }
      const id = `${this.prefix}${++this.#next}`;
      msg._msgid = id;
      msg[EVENT_PROPERTY] = id;
      // One count held by the send itself, so deliveries counted during it cannot reach zero early.
      const tracked: Tracked = {
        id,
        recordId,
        count: 1,
        failure: undefined,
        stopping: false,
        riders: [],
        ridesOn: undefined,
        holders: new Map(),
        settle: () => undefined,
      };
      tracked.settle = settle(tracked);
      track(this.#runtime, tracked);
      this.#mine.add(tracked);
      if (recordId !== undefined) this.#byRecord.set(recordId, tracked);
      signal.addEventListener('abort', () => this.#stoppedWaiting(tracked), { once: true });
      send(msg);
      finishOne(this.#runtime, tracked);
    });
  }

  /**
   * Core stopped waiting for the attempt (late, or closed; it aborts after its report, which asked
   * `waitingAt` where the event is held). A message of it that a node still holds stays counted:
   * the next attempt takes that copy up, and its end is the event's. Otherwise the event's
   * messages are no longer ours to count.
   */
  #stoppedWaiting(tracked: Tracked): void {
    if (!this.#mine.has(tracked) || holdersOf(tracked).length > 0) return;
    this.#forget(tracked);
    untrack(this.#runtime, tracked.id);
  }

  /** The latest message of event `recordId` while a node holds it (or the message a join made of it). */
  #heldCopy(recordId: number): Tracked | undefined {
    const tracked = this.#byRecord.get(recordId);
    if (tracked === undefined || this.#runtime.events.get(tracked.id) !== tracked) return undefined;
    return holdersOf(tracked).length > 0 ? tracked : undefined;
  }

  /** One of this node's events is no longer out: finished, or given up on by core. */
  #forget(tracked: Tracked): void {
    this.#mine.delete(tracked);
    const { recordId } = tracked;
    if (recordId !== undefined && this.#byRecord.get(recordId) === tracked) this.#byRecord.delete(recordId);
  }

  /**
   * The nodes holding the latest message of event `recordId` (or the message a join made of it)
   * now: a join waiting for its group, a delay's queue, a node still working. Empty when none holds
   * it (finished, or between nodes).
   */
  waitingAt(recordId: number): RuntimeNode[] {
    const tracked = this.#byRecord.get(recordId);
    return tracked === undefined ? [] : holdersOf(tracked);
  }

  /**
   * The node is closing: Node-RED stops every node of the flow at once and drops what they send
   * from then on, so an event that ends at a node with wired outputs (or with an error) may have
   * been cut off rather than finished: it stays unacknowledged (a restart sends it again). One that
   * ends at a node without outputs (a file node writing what it holds) is finished.
   */
  stopping(): void {
    for (const tracked of this.#mine) tracked.stopping = true;
  }

  /** On close: the hooks go with the last node; what is out stays unacknowledged (a restart repeats it). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const tracked of this.#mine) untrack(this.#runtime, tracked.id);
    this.#mine.clear();
    this.#runtime.users--;
    if (this.#runtime.users === 0) runtimes.delete(this.hooks);
  }
}

/** The nodes holding the event's message now, or the message a join made of it. */
function holdersOf(event: Tracked): RuntimeNode[] {
  for (let tracked: Tracked | undefined = event; tracked !== undefined; tracked = tracked.ridesOn) {
    if (tracked.holders.size > 0) return [...tracked.holders.keys()];
  }
  return [];
}

function attach(hooks: MessagingHooks): Runtime {
  const existing = runtimes.get(hooks);
  if (existing) {
    existing.users++;
    return existing;
  }
  const events = new Map<string, Tracked>();
  const counted = new WeakMap<object, number>();
  const delivered = (event: Delivery) => {
    const tracked = lookup(events, event.msg);
    if (tracked === undefined) return;
    const sender = event.source?.node;
    if (sender !== undefined) {
      if (runtime.sentNow.size === 0) queueMicrotask(() => runtime.sentNow.clear());
      runtime.sentNow.set(sender, tracked);
    }
    // A message a function built afresh has only our `_msgid`: given the other id too, a split
    // further on (which replaces `_msgid`) keeps it on its parts.
    if (event.msg[EVENT_PROPERTY] === undefined) event.msg[EVENT_PROPERTY] = tracked.id;
    tracked.count++;
    const node = event.destination.node;
    // No `done` to wait for: counted off once its input handler has run (see `doneless`).
    if (node._expectedDoneCount === 0) doneless(runtime, node, tracked);
    else {
      counted.set(event.msg, (counted.get(event.msg) ?? 0) + 1);
      tracked.holders.set(node, (tracked.holders.get(node) ?? 0) + 1);
    }
  };
  const completed = (event: Completion) => {
    const tracked = lookup(events, event.msg);
    if (tracked === undefined) return;
    const times = counted.get(event.msg);
    if (times === undefined) return;
    if (times === 1) counted.delete(event.msg);
    else counted.set(event.msg, times - 1);
    const holds = tracked.holders.get(event.node.node) ?? 0;
    if (holds > 1) tracked.holders.set(event.node.node, holds - 1);
    else tracked.holders.delete(event.node.node);
    if (event.error !== undefined && event.error !== null && tracked.failure === undefined) {
      tracked.failure = nodeFailure(event.node.node, event.error);
    }
    const carrier = runtime.sentNow.get(event.node.node);
    if (carrier !== undefined && carrier !== tracked && events.get(carrier.id) === carrier) {
      // Merged into the message the node just sent: this delivery ends with that message.
      carrier.riders.push(tracked);
      tracked.ridesOn = carrier;
      return;
    }
    finishOne(runtime, tracked, event.node.node);
  };
  const runtime: Runtime = {
    users: 1,
    hooks,
    // One argument each: Node-RED calls such a hook synchronously, without a callback.
    callbacks: { preDeliver: delivered, onComplete: completed },
    hooked: false,
    events,
    counted,
    doneless: new Map(),
    sentNow: new Map(),
  };
  runtimes.set(hooks, runtime);
  return runtime;
}

/** An event goes out: the hooks are added if it is the runtime's only one. */
function track(runtime: Runtime, tracked: Tracked): void {
  if (!runtime.hooked) {
    runtime.hooked = true;
    for (const hook of HOOKS) runtime.hooks.add(`${hook}.${LABEL}`, runtime.callbacks[hook]);
  }
  runtime.events.set(tracked.id, tracked);
}

/** An event is finished or forgotten: the hooks go with the runtime's last one out. */
function untrack(runtime: Runtime, id: string): void {
  runtime.events.delete(id);
  if (runtime.events.size > 0 || !runtime.hooked) return;
  runtime.hooked = false;
  for (const hook of HOOKS) runtime.hooks.remove(`${hook}.${LABEL}`);
}

/**
 * A message of ours is on its way to a node without `done`. The runtime delivers it on the next
 * turn (setImmediate, scheduled right after this hook); the switch node takes the messages that
 * arrive while it is busy one per turn. So the first count-off waits two turns and the next ones
 * one each, in order: each comes a turn after the node received (or took from its queue) that
 * message, when it has sent it on (counted) or dropped it.
 */
function doneless(runtime: Runtime, node: RuntimeNode, tracked: Tracked): void {
  const queue = runtime.doneless.get(node);
  if (queue) {
    queue.push(tracked);
    return;
  }
  runtime.doneless.set(node, [tracked]);
  const pump = () => {
    const waiting = runtime.doneless.get(node) as Tracked[];
    finishOne(runtime, waiting.shift() as Tracked, node);
    if (waiting.length > 0) setImmediate(pump);
    else runtime.doneless.delete(node);
  };
  setImmediate(() => setImmediate(pump));
}

/** The event a message belongs to, if it is one of ours still out: one map look-up for any other message. */
function lookup(events: Map<string, Tracked>, msg: NodeMessage): Tracked | undefined {
  const tracked = events.get(msg._msgid as string);
  if (tracked !== undefined) return tracked;
  const id = msg[EVENT_PROPERTY];
  return id === undefined ? undefined : events.get(id as string);
}

/** One delivery of the event finished (at `node`; none for the send's own count). */
function finishOne(runtime: Runtime, tracked: Tracked, node?: RuntimeNode): void {
  if (runtime.events.get(tracked.id) !== tracked) return;
  tracked.count--;
  if (tracked.count > 0) return;
  untrack(runtime, tracked.id);
  for (const rider of tracked.riders) {
    if (rider.failure === undefined) rider.failure = tracked.failure;
    finishOne(runtime, rider, node);
  }
  if (tracked.stopping && (tracked.failure !== undefined || node === undefined || sends(node))) return;
  tracked.settle(tracked.failure);
}

function sends(node: RuntimeNode): boolean {
  return node.wires?.some((port) => port.length > 0) ?? true;
}

/** A node as a report names it: `join node "batch"`, or by its id when it has no name. */
export function nodeLabel(node: RuntimeNode): string {
  return `${node.type} node ${node.name ? `"${node.name}"` : node.id}`;
}

/** The error core reports once and the node logs: which node failed, and why. */
function nodeFailure(node: RuntimeNode, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(`${nodeLabel(node)} failed: ${reason}`, { cause: error });
}
