import { asError } from '../errors/as-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { matchesEventFilter, matchingObjects } from '../filter/event-filter.js';
import { Cooldown } from './cooldown.js';
import type { CompletionSink, Failure, GaveUp } from './delivery-queue.js';
import { eventKey } from './event-key.js';
import { spokenDuration } from './spoken-duration.js';
import type { Item, Stream, StreamAction } from './stream.js';
import { streamTitle } from './stream-title.js';
import type { ResolvedOptions } from './subscribe-options.js';
import type { GivenUp, SubscriptionStats } from './types.js';

export type Counters = Omit<
  SubscriptionStats,
  'queued' | 'peakQueued' | 'inFlight' | 'readingBack' | 'lastEventAt'
>;

/** What the ledger asks of the subscription. */
export interface LedgerHost {
  report(error: Error): void;
  dispatch(stream: Stream, action: StreamAction): void;
  /** The position moved past an event: a save may be due. */
  moved(): void;
  /** `pause` pressure of the delivery queue: the sockets stop or resume reading. */
  pressure(paused: boolean): void;
  /** Core gave up on events whose handler failed (`onGiveUp`). */
  gaveUp(given: GivenUp): void;
}

/**
 * The books of a subscription: which events were admitted (by identity, per stream), what became
 * of each (the delivery queue's one completion sink), and the counters. The position moves only
 * here, past events the host acknowledged or the caller's own policy let go, in order.
 */
export class DeliveryLedger implements CompletionSink<Item> {
  readonly counters: Counters = {
    received: 0,
    delivered: 0,
    filtered: 0,
    duplicatesDropped: 0,
    backfilled: 0,
    malformed: 0,
    reconnects: 0,
    dropped: 0,
    heldBack: 0,
    givenUp: 0,
  };
  /** With the `cooldown` option: which events of a key pass (judged at admission). */
  readonly cooldown: Cooldown | undefined;
  /** Occurrence time of the newest event acknowledged (`stats.lastEventAt`). */
  lastDeliveredMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly options: ResolvedOptions,
    /** Who handles the events, as the reports name it (`ack.handlerLabel`, or the handler's name). */
    private readonly handlerName: string,
    private readonly host: LedgerHost,
  ) {
    // A slot is kept as long as an event may still come that falls within it: as far back as a
    // catch-up reads.
    this.cooldown =
      options.cooldown && new Cooldown(options.cooldown, options.allowedLatenessMs + options.overlapMs);
  }

  /** Admission by identity: true when the item is new (and now has its order). */
  admit(item: Item): boolean {
    const { stream, event } = item;
    const order = stream.admission.admit(eventKey(event), event.occurredAt.getTime());
    if (order === undefined) {
      this.counters.duplicatesDropped++;
      return false;
    }
    item.order = order;
    const filter = this.options.filter;
    if (filter !== undefined) {
      item.wanted = matchesEventFilter(event, filter);
      const matched = item.wanted ? matchingObjects(event, filter) : undefined;
      if (matched !== undefined) item.meta.matched = matched;
    }
    if (this.cooldown !== undefined && item.wanted) {
      const verdict = this.cooldown.judge(event, item.meta.matched);
      if (verdict.held) {
        item.wanted = false;
        item.held = true;
      } else item.meta.cooldown = verdict.cooldown;
      // The cooldown's state is part of the position: a save is due even before the event is done.
      this.host.moved();
    }
    if (stream.admission.capacityReached && !stream.capacityReported) {
      this.host.dispatch(stream, { type: 'capacity-reported' });
      this.host.report(
        new ObservationError(
          'DEDUPE_CAPACITY',
          `More than ${this.options.dedupeCapacity} events of ${streamTitle(stream.label)} fell within the allowed lateness: catch-ups now start later than the lateness asks, so an event published that late may be missed after a reconnect`,
        ),
      );
    }
    return true;
  }

  /** The host acknowledged the item (or the filter kept it from the host), every earlier one too. */
  delivered(item: Item): void {
    const { event } = item;
    this.counters.delivered++;
    if (item.meta.source === 'backfill') this.counters.backfilled++;
    if (item.held) this.counters.heldBack++;
    else if (!item.wanted) this.counters.filtered++;
    const time = event.occurredAt.getTime();
    item.stream.admission.delivered(item.order, time);
    if (time >= this.lastDeliveredMs) this.lastDeliveredMs = time;
    this.host.moved();
  }

  dropped(): void {
    this.counters.dropped++;
  }

  /** Dropped by the caller's own policy: once the events before it are done, the position may pass it. */
  skipped(item: Item): void {
    item.stream.admission.delivered(item.order, item.event.occurredAt.getTime());
    this.host.moved();
  }

  /** Once per event (or batch), at its first failure: what failed, and what core does next. */
  failed(error: unknown, items: Item[], failure: Failure): void {
    const { deadlineMs, attempts } = this.options.ack;
    const what = items.length === 1 ? `event ${eventIds(items)}` : `a batch of events ${eventIds(items)}`;
    const next = !failure.again
      ? 'it counts as handled'
      : failure.pauseMs === undefined
        ? `delivering it again (attempt ${failure.attempt + 1} of at most ${attempts}, then it counts as handled)`
        : `trying again in ${spokenDuration(failure.pauseMs)} (attempt ${failure.attempt + 1} of at most ${attempts}, then it counts as handled)`;
    const about = recordIds(items);
    if (failure.reason === 'late') {
      this.host.report(
        new ObservationError(
          'HANDLER_TIMEOUT',
          `${this.handlerName} did not finish ${what} within ${deadlineMs / 1000} s: ${next}`,
          { eventIds: about },
        ),
      );
      return;
    }
    this.host.report(
      new ObservationError(
        'HANDLER_ERROR',
        `${this.handlerName} failed for ${what}: ${asError(error).message}; ${next}`,
        { cause: error, eventIds: about },
      ),
    );
  }

  /**
   * A unit that failed was let go without success: one line for the user, the events for the host,
   * and the cooldown slots they held freed (a failed alert must not silence the next one).
   */
  gaveUp(items: Item[], gaveUp: GaveUp): void {
    this.counters.givenUp += items.length;
    if (this.cooldown !== undefined) {
      let freed = false;
      for (const { event, meta } of items)
        if (meta.cooldown && this.cooldown.giveBack(event, meta.cooldown.key)) freed = true;
      if (freed) this.host.moved();
    }
    const error = gaveUp.error === undefined ? undefined : asError(gaveUp.error);
    const what =
      items.length === 1
        ? `event ${eventIds(items)} of task ${items[0]?.event.taskId}`
        : `a batch of ${items.length} events (${eventIds(items)}) of ${taskList(items)}`;
    const last =
      error === undefined
        ? `its last attempt did not finish within ${this.options.ack.deadlineMs / 1000} s`
        : `the last error was: ${error.message}`;
    const calls = gaveUp.attempts === 1 ? '1 attempt' : `${gaveUp.attempts} attempts`;
    this.host.report(
      new ObservationError(
        'HANDLER_GAVE_UP',
        `${this.handlerName} gave up on ${what} after ${calls}, ${spokenDuration(gaveUp.gaveUpMs - gaveUp.firstFailedMs)} after the first failure; ${last}. It counts as handled`,
        {
          eventIds: recordIds(items),
          ...(error === undefined ? {} : { cause: gaveUp.error }),
        },
      ),
    );
    const given: GivenUp = {
      events: items.map((item) => item.event),
      metas: items.map((item) => item.meta),
      attempts: gaveUp.attempts,
      reason: gaveUp.reason,
      firstFailedAt: new Date(gaveUp.firstFailedMs),
      gaveUpAt: new Date(gaveUp.gaveUpMs),
    };
    if (error !== undefined) given.error = error;
    this.host.gaveUp(given);
  }

  pressure(paused: boolean): void {
    this.host.pressure(paused);
  }
}

/** The distinct tasks of the events, for a report. */
function taskList(items: Item[]): string {
  const tasks = [...new Set(items.map((item) => item.event.taskId))];
  return tasks.length === 1
    ? `task ${tasks[0]}`
    : `tasks ${tasks.slice(0, 5).join(', ')}${tasks.length > 5 ? '…' : ''}`;
}

/** The record ids of the items that have one (the `eventIds` of a handler report). */
function recordIds(items: Item[]): number[] {
  return items.flatMap((item) => (item.event.id === undefined ? [] : [item.event.id]));
}

/** The first few ids of the events, for a report. */
function eventIds(items: Item[]): string {
  const ids = items.slice(0, 3).map((item) => String(item.event.id));
  return items.length > 3 ? `${ids.join(', ')}…` : ids.join(', ');
}
