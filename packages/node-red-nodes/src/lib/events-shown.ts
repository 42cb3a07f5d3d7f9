import {
  AuthError,
  createThrottledStatus,
  type Outage,
  type Recovery,
  type StateChangeInfo,
  type SubscriptionState,
  systemClock,
} from '@observation-service/core';
import { eventsStatus, type Translate } from './events-status.js';
import { codeOf } from './node-errors.js';
import type { Node } from './node-red-api.js';

/** Status refreshes at most this often while events stream in. */
const STATUS_INTERVAL_MS = 500;

/**
 * What an events node shows of its subscription (the status ring) and what it tells Catch about
 * reaching the service: core's states, the events sent and waiting, the tasks a message chose,
 * and why it cannot connect, once per spell however often core retries (as Node-RED's mqtt and
 * http request nodes do).
 */
export class EventsShown {
  count = 0;
  state: SubscriptionState = 'connecting';
  authFailed = false;
  /** What a `subscribe` message set; undefined while the editor's selection holds. */
  retargeted: { tasks: string | undefined } | undefined;
  #info: StateChangeInfo = {};
  /** Why the service cannot be reached, short, until it first connects; undefined once it has. */
  #unreachable: string | undefined;
  /** The stream has been open since the node started. */
  #connected = false;
  readonly #log: (message: string) => void;
  readonly #status;

  constructor(
    node: Node,
    private readonly t: Translate,
    private readonly report: (error: unknown) => void,
    /**
     * Core's counts: events in the flow or waiting for it ("when the flow is done"; 0 otherwise),
     * held back by the cooldown, given up.
     */
    counts: () => { waiting: number; heldBack: number; givenUp: number },
  ) {
    this.#log = (message) => node.log(message);
    this.#status = createThrottledStatus(
      () => {
        const attempt = this.state === 'reconnecting' ? this.#info.attempt : undefined;
        const { state, count, authFailed, retargeted } = this;
        node.status(
          eventsStatus(
            {
              state,
              count,
              authFailed,
              ...counts(),
              ...(attempt === undefined ? {} : { attempt }),
              ...(this.#unreachable === undefined ? {} : { unreachable: this.#unreachable }),
              ...(retargeted ? { retargeted } : {}),
            },
            t,
          ),
        );
      },
      { intervalMs: STATUS_INTERVAL_MS, clock: systemClock },
    );
  }

  /** An event went out, or one finished: shown within the interval. */
  request(): void {
    this.#status.request();
  }

  now(): void {
    this.#status.now();
  }

  close(): void {
    this.#status.close();
  }

  /** Core's state change. */
  changed(next: SubscriptionState, info: StateChangeInfo): void {
    this.state = next;
    this.#info = info;
    if (next === 'open') {
      this.authFailed = false;
      this.#unreachable = undefined;
      this.#connected = true;
    }
    if (AuthError.isInstance(info.error)) this.authFailed = true;
    this.now();
  }

  /**
   * Core says the stream is down, and why (once per outage): Catch hears it, the reason as the
   * ring says it, then the request that failed (the debug sidebar shows a message's start). A
   * node that never connected shows it in a red ring; one that did shows its reconnect attempts.
   */
  outage(outage: Outage): void {
    if (!this.#connected) this.#unreachable = outage.short;
    this.now();
    const reason = this.t('observation-events.status.cannotConnect', { reason: outage.short });
    this.report(
      Object.assign(new Error(`${reason}: ${outage.detail}`, { cause: outage.error }), {
        code: codeOf(outage.error),
      }),
    );
  }

  /** Back after an outage: said in Node-RED's log. */
  recovered(recovery: Recovery): void {
    this.#log(this.t('observation-events.status.recovered', { seconds: Math.round(recovery.downMs / 1000) }));
  }
}
