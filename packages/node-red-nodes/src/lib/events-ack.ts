import { randomBytes } from 'node:crypto';
import { ValidationError } from '@observation-service/core';
import type { NodeMessage } from './node-red-api.js';

/**
 * The property an event's message carries in "when the flow is done" mode. Node-RED's message
 * cloning (a second wire, the `complete` node) deep-copies every property but `req`/`res`, so it
 * survives the flow; it is ours, so a message that carries it is told apart from a control
 * message without guessing, and `_msgid` stays Node-RED's.
 */
export const ACK_PROPERTY = '_observationAck';

/** When an event counts as handled: as it is sent (today's), or when its message comes back. */
export type AckMode = 'sent' | 'done';
/** What becomes of an event whose message did not come back in time, after it was reported. */
export type AckTimeoutAction = 'retry' | 'release';

export interface AckSettings {
  mode: AckMode;
  timeoutMs: number;
  onTimeout: AckTimeoutAction;
  /** Events sent and not yet back, at most (core's `maxInFlight`). */
  maxInFlight: number;
}

/** The editor's fields of the acknowledgement, as saved. */
export interface AckConfig {
  ackMode?: string;
  ackTimeout?: string | number;
  ackTimeoutAction?: string;
  maxInFlight?: string | number;
}

const DEFAULT_TIMEOUT_SECONDS = 60;
const DEFAULT_MAX_IN_FLIGHT = 10;
/** Core's own bound on `maxInFlight`. */
const MAX_IN_FLIGHT_LIMIT = 10_000;
/** A day: longer is a flow that will not come back, better released or retried sooner. */
const MAX_TIMEOUT_SECONDS = 86_400;

/** The acknowledgement settings from the editor fields; a bad value names the field by its label. */
export function ackSettings(config: AckConfig): AckSettings {
  const mode = config.ackMode ?? 'sent';
  if (mode !== 'sent' && mode !== 'done') {
    throw new ValidationError(
      'Handled',
      JSON.stringify(mode),
      '"sent" (when sent) or "done" (when the flow is done)',
    );
  }
  const action = config.ackTimeoutAction ?? 'retry';
  if (action !== 'retry' && action !== 'release') {
    throw new ValidationError(
      'Not done in time',
      JSON.stringify(action),
      '"retry" (send again) or "release" (let it go)',
    );
  }
  return {
    mode,
    onTimeout: action,
    timeoutMs:
      wholeNumber(config.ackTimeout, 'Done within', DEFAULT_TIMEOUT_SECONDS, 1, MAX_TIMEOUT_SECONDS) * 1000,
    maxInFlight: wholeNumber(config.maxInFlight, 'In flight', DEFAULT_MAX_IN_FLIGHT, 1, MAX_IN_FLIGHT_LIMIT),
  };
}

function wholeNumber(
  value: string | number | undefined,
  label: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new ValidationError(label, JSON.stringify(value), `a whole number from ${min} to ${max}`);
  }
  return number;
}

interface Waiting {
  make: () => NodeMessage;
  resolve: () => void;
  timer: NodeJS.Timeout;
  reported: boolean;
}

export interface AckHooks {
  send(msg: NodeMessage): void;
  /** Called once per event, the first time its message is not back in time. */
  late(msg: NodeMessage): void;
}

/**
 * The binding of "when the flow is done": each event's message goes out with an id, and the
 * promise core's delivery queue waits for resolves when a message with that id comes back to the
 * node, in any order. Core moves the position past an event only then (and past every earlier
 * one), and bounds what is out with `maxInFlight`. Core counts a rejected handler as handled, so
 * "retry" is the node sending the event again; a message of any attempt acknowledges it.
 */
export class AckBook {
  /** Random per node instance: a message of a previous deploy coming back matches nothing. */
  readonly #prefix = randomBytes(6).toString('hex');
  #next = 0;
  readonly #waiting = new Map<string, Waiting>();

  constructor(
    private readonly settings: AckSettings,
    private readonly hooks: AckHooks,
  ) {}

  /** Events sent and not yet back. */
  get outstanding(): number {
    return this.#waiting.size;
  }

  /** Sends the event's message (`make` builds it afresh for a retry); resolves when it is back. */
  send(make: () => NodeMessage): Promise<void> {
    const id = `${this.#prefix}-${++this.#next}`;
    return new Promise<void>((resolve) => {
      const waiting: Waiting = { make, resolve, reported: false, timer: undefined as never };
      this.#waiting.set(id, waiting);
      this.#dispatch(id, waiting);
    });
  }

  /**
   * A message came back. True when it carries an acknowledgement id (ours or a stale one: a
   * second copy, a message after its event was released, one of a previous deploy), which the
   * node then takes as done; false for any other message.
   */
  acknowledge(msg: NodeMessage): boolean {
    const id = msg[ACK_PROPERTY];
    if (typeof id !== 'string') return false;
    const waiting = this.#waiting.get(id);
    if (waiting) this.#finish(id, waiting);
    return true;
  }

  /** On close: nothing more is sent; what is out stays unacknowledged (core redelivers it after a restart). */
  close(): void {
    for (const waiting of this.#waiting.values()) clearTimeout(waiting.timer);
    this.#waiting.clear();
  }

  #dispatch(id: string, waiting: Waiting): void {
    const msg = waiting.make();
    msg[ACK_PROPERTY] = id;
    waiting.timer = setTimeout(() => this.#timedOut(id, waiting), this.settings.timeoutMs);
    this.hooks.send(msg);
  }

  #timedOut(id: string, waiting: Waiting): void {
    if (this.#waiting.get(id) !== waiting) return;
    if (!waiting.reported) {
      waiting.reported = true;
      const msg = waiting.make();
      msg[ACK_PROPERTY] = id;
      this.hooks.late(msg);
    }
    if (this.settings.onTimeout === 'release') this.#finish(id, waiting);
    else this.#dispatch(id, waiting);
  }

  #finish(id: string, waiting: Waiting): void {
    clearTimeout(waiting.timer);
    this.#waiting.delete(id);
    waiting.resolve();
  }
}
