import {
  AuthError,
  createThrottledStatus,
  type StateChangeInfo,
  type SubscriptionState,
  systemClock,
} from '@observation-service/core';
import { connectDetail, connectReason } from './connect-reason.js';
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
  /** Why the service cannot be reached, short, since it last connected; undefined once it connects. */
  #unreachable: string | undefined;
  readonly #status;

  constructor(
    node: Node,
    private readonly t: Translate,
    private readonly report: (error: unknown) => void,
    /** Events in the flow or waiting for it ("when the flow is done"; 0 otherwise). */
    waiting: () => number,
  ) {
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
              waiting: waiting(),
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
    }
    if (AuthError.isInstance(info.error)) this.authFailed = true;
    // Never connected yet and core says why: the address or the network is wrong.
    if (next === 'connecting' && info.error && !AuthError.isInstance(info.error)) {
      this.cannotConnect(info.error);
      return;
    }
    this.now();
  }

  /** The service cannot be reached (yet): a red ring with the reason; Catch hears it once. */
  cannotConnect(error: Error): void {
    const first = this.#unreachable === undefined;
    this.#unreachable = connectReason(error);
    this.now();
    // The debug sidebar shows a message's start: the reason as the ring says it, then the request
    // that failed and its address; what core was doing is the cause.
    if (first) {
      const reason = this.t('observation-events.status.cannotConnect', { reason: this.#unreachable });
      const detail = connectDetail(error);
      this.report(
        Object.assign(new Error(`${reason}: ${detail}`, { cause: error }), { code: codeOf(error) }),
      );
    }
  }
}
