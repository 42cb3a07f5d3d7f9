import {
  createThrottledStatus,
  type Outage,
  type Recovery,
  type SubscriptionStatus,
  systemClock,
} from '@observation-service/core';
import { eventsStatus, type Translate } from './events-status.js';
import { codeOf } from './node-errors.js';
import type { Node } from './node-red-api.js';

/** Status refreshes at most this often while events stream in. */
const STATUS_INTERVAL_MS = 500;

/**
 * What an events node shows of its subscription (the status ring) and what it tells Catch about
 * reaching the service: core's status (the state, and why it cannot connect), the events sent and
 * waiting, the tasks a message chose; Catch hears why it cannot connect once per outage however
 * often core retries (as Node-RED's mqtt and http request nodes do).
 */
export class EventsShown {
  count = 0;
  /** Core's word on what to show (a refused start sets `failed` itself). */
  status: SubscriptionStatus = { state: 'connecting' };
  /** What a `subscribe` message set; undefined while the editor's selection holds. */
  retargeted: { tasks: string | undefined } | undefined;
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
        const { status, count, retargeted } = this;
        node.status(
          eventsStatus({ ...status, count, ...counts(), ...(retargeted ? { retargeted } : {}) }, t),
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

  /** Core's status: shown at once. */
  changed(status: SubscriptionStatus): void {
    this.status = status;
    this.now();
  }

  /**
   * Core says the stream is down, and why (once per outage): Catch hears it, the reason as the
   * ring says it, then the request that failed (the debug sidebar shows a message's start).
   */
  outage(outage: Outage): void {
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
