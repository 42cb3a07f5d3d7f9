import { asError } from '../errors/as-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { readCatchUpWindows } from './catch-up.js';
import type { RealtimeContext } from './context.js';
import type { DeliveryLedger } from './delivery-ledger.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { frameEvent, frameJson } from './frame-parser.js';
import { type HistoryDirection, mergeCatchUp } from './ordered-merge.js';
import { type Item, newItem, type Stream, type StreamAction } from './stream.js';
import { streamTitle } from './stream-title.js';
import type { ResolvedOptions } from './subscribe-options.js';

/** What the intake needs of the subscription that composes it. */
export interface IntakeHost {
  readonly context: RealtimeContext;
  readonly options: ResolvedOptions;
  readonly queue: DeliveryQueue<Item>;
  readonly ledger: DeliveryLedger;
  dispatch(stream: Stream, action: StreamAction): void;
  report(error: Error): void;
}

/**
 * How a stream's events reach the delivery queue: live frames (held while the stream is not live),
 * the catch-up from history when a socket opens, and the read-back of the allowed lateness after
 * it. Every event is admitted by identity on its way in, so each reaches the queue once.
 */
export class StreamIntake {
  /** The history order learned from earlier catch-ups, for windows that carry no evidence. */
  private historyOrder: HistoryDirection | undefined;

  constructor(private readonly host: IntakeHost) {}

  frame(stream: Stream, data: unknown): void {
    const { ledger } = this.host;
    ledger.counters.received++;
    // parseFrame in two steps, so a live frame costs no result object.
    const raw = frameJson(data);
    const event = raw instanceof ProtocolError ? raw : frameEvent(raw, data);
    if (event instanceof ProtocolError) {
      ledger.counters.malformed++;
      this.host.report(event);
      return;
    }
    const item = newItem(event, raw, 'live', stream);
    if (stream.phase === 'live') this.enqueue(item);
    else this.host.dispatch(stream, { type: 'held', item });
  }

  /**
   * A socket is open. A fresh start goes live at once and reads what was published while its
   * socket opened after (`freshStart`); one that resumes (a stored position, a look-back, a new
   * task, any reconnect) first catches up from history, while live frames wait.
   * A stream that had events reads what it missed first and goes live; the allowed lateness of
   * history before that, where only events published late can be new, is read after (`readBack`).
   * Only after an outage shorter than the lateness: the keys the read-back may meet again are kept
   * until it ends, so an outage of any length would keep that many more. After a longer one, the
   * read-back is a small part of the catch-up, which reads everything in one pass as before.
   */
  opened(stream: Stream): void {
    const { options, context } = this.host;
    const openedMs = context.clock.now();
    if (!stream.started && stream.startFromMs === undefined) {
      this.freshStart(stream, openedMs);
      return;
    }
    const range = stream.admission.catchUpRange(options.allowedLatenessMs, options.overlapMs);
    const oldest = openedMs - options.maxLookBackMs;
    // A second of grace: a look-back equal to the limit was computed a moment earlier.
    if (range.fromMs < oldest - 1_000) {
      this.host.report(
        new ObservationError(
          'BACKFILL_TRUNCATED',
          `Catching up ${streamTitle(stream.label)} only from ${new Date(oldest).toISOString()}: events before that are older than maxLookBackMs (${options.maxLookBackMs} ms) and are not fetched`,
        ),
      );
    }
    const from = Math.max(range.fromMs, oldest);
    const missed = range.missedFromMs;
    const split = missed !== undefined && missed > from && openedMs - missed <= options.allowedLatenessMs;
    const missedFrom = split ? missed : undefined;
    const controller = new AbortController();
    this.host.dispatch(stream, { type: 'catching-up', catchUp: controller });
    const back = this.readBackSpan(from, missedFrom, openedMs);
    if (back !== undefined) stream.admission.owe(back.fromMs);
    void this.resume(stream, missedFrom ?? from, back, controller.signal);
  }

  /**
   * A fresh start goes live at once; what was published while its socket opened (from the start
   * second on) is read from history right away, and once more when `historyLagMs` has passed,
   * and delivered as it is found, after the live events already delivered (as late ones are).
   */
  private freshStart(stream: Stream, openedMs: number): void {
    const { options } = this.host;
    const controller = new AbortController();
    this.goLive(stream, controller);
    const floorMs = stream.admission.floor;
    const toMs = Math.floor(openedMs / 1000) * 1000 + 999;
    stream.admission.owe(floorMs);
    const signal = controller.signal;
    void (async () => {
      this.host.dispatch(stream, { type: 'reading-back', readingBack: true });
      try {
        if (!(await this.readBackPart(stream, floorMs, toMs, options.historyLagMs === 0, signal))) return;
        if (options.historyLagMs > 0) {
          await this.host.context.clock.sleep(
            Math.max(0, openedMs + options.historyLagMs - this.host.context.clock.now()),
            signal,
          );
          await this.readBackPart(stream, floorMs, toMs, true, signal);
        }
      } catch (error) {
        this.backfillFailed(stream, error, signal);
      } finally {
        this.host.dispatch(stream, { type: 'reading-back', readingBack: false });
        this.host.dispatch(stream, { type: 'caught-up', signal });
      }
    })();
  }

  /**
   * What is read once more after the catch-up, while the stream is live: the allowed lateness
   * before the missed span (only events published late can be new there), and, when history may
   * lag the live feed, every event that may have been pushed before the socket opened but not
   * shown in history yet: stamped up to the lateness before it was pushed, pushed at most
   * `historyLagMs` before the socket opened. Read once that lag has passed since the socket
   * opened, the recent part first (where nearly all such events are: pushed within the lag, and
   * stamped within the overlap before), so they are not delivered after a re-read of the lateness.
   */
  private readBackSpan(
    from: number,
    missedFrom: number | undefined,
    openedMs: number,
  ): ReadBackSpan | undefined {
    const { historyLagMs: lag, allowedLatenessMs: lateness, overlapMs } = this.host.options;
    if (lag === 0) {
      return missedFrom === undefined
        ? undefined
        : { fromMs: from, recentFromMs: missedFrom, toMs: missedFrom, atMs: 0 };
    }
    const fromMs = missedFrom === undefined ? Math.max(from, openedMs - lag - lateness) : from;
    return {
      fromMs,
      recentFromMs: Math.max(fromMs, openedMs - lag - overlapMs),
      // History has whole seconds: the second the socket opened in, to its end.
      toMs: Math.floor(openedMs / 1000) * 1000 + 999,
      atMs: openedMs + lag,
    };
  }

  private async resume(
    stream: Stream,
    from: number,
    back: ReadBackSpan | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const live = await this.catchUp(stream, from, signal);
    if (live) {
      if (back === undefined) stream.admission.readBack(undefined);
      else await this.readBack(stream, back, signal);
    }
    this.host.dispatch(stream, { type: 'caught-up', signal });
  }

  /** Reads history from `fromMs` on, delivers it in time order, then goes live: true once live. */
  private async catchUp(stream: Stream, fromMs: number, signal: AbortSignal): Promise<boolean> {
    try {
      for await (const window of this.readHistory(stream, fromMs, undefined, signal)) {
        let items = window.items.map((entry) => newItem(entry.event, entry.raw, 'backfill', stream));
        // Live frames that arrived meanwhile and belong to this window are merged in time order.
        if (window.final) {
          items = mergeCatchUp(items, stream.pending);
          this.host.dispatch(stream, { type: 'taken' });
        }
        for (const item of items) if (!(await this.queueWithRoom(item, signal))) return false;
      }
      // Live frames that came in while the last window was being delivered.
      while (stream.pending.length > 0) {
        const held = stream.pending;
        this.host.dispatch(stream, { type: 'taken' });
        for (const item of held) if (!(await this.queueWithRoom(item, signal))) return false;
      }
      if (signal.aborted) return false;
      this.goLive(stream);
      return true;
    } catch (error) {
      this.backfillFailed(stream, error, signal);
      return false;
    }
  }

  /**
   * The read-back (see `readBackSpan`), read while the stream is live: what it finds is delivered
   * as it is found, after newer events (as it would have been live). Until its older part is read
   * and delivered the admission owes it, so a save or a later catch-up never starts after it.
   */
  private async readBack(stream: Stream, span: ReadBackSpan, signal: AbortSignal): Promise<void> {
    this.host.dispatch(stream, { type: 'reading-back', readingBack: true });
    try {
      const wait = span.atMs - this.host.context.clock.now();
      if (wait > 0) await this.host.context.clock.sleep(wait, signal);
      if (
        span.recentFromMs < span.toMs &&
        !(await this.readBackPart(stream, span.recentFromMs, span.toMs, false, signal))
      )
        return;
      await this.readBackPart(stream, span.fromMs, span.recentFromMs, true, signal);
    } catch (error) {
      this.backfillFailed(stream, error, signal);
    } finally {
      this.host.dispatch(stream, { type: 'reading-back', readingBack: false });
    }
  }

  /** One part of the read-back; `owed`: the part the admission owes (marked as it is delivered). */
  private async readBackPart(
    stream: Stream,
    fromMs: number,
    toMs: number,
    owed: boolean,
    signal: AbortSignal,
  ): Promise<boolean> {
    for await (const window of this.readHistory(stream, fromMs, toMs, signal)) {
      for (const entry of window.items) {
        // Before the horizon the keys were forgotten (more events than the dedupe memory holds,
        // reported once as DEDUPE_CAPACITY): such an event may have been delivered already.
        if (entry.event.occurredAt.getTime() < stream.admission.horizon) continue;
        if (!(await this.queueWithRoom(newItem(entry.event, entry.raw, 'backfill', stream), signal)))
          return false;
      }
      if (signal.aborted) return false;
      if (owed) stream.admission.readBack(window.final ? undefined : window.endMs);
    }
    return true;
  }

  private backfillFailed(stream: Stream, error: unknown, signal: AbortSignal): void {
    if (signal.aborted) return;
    const failure = new ObservationError(
      'BACKFILL_FAILED',
      `Catching up ${streamTitle(stream.label)} from history failed, reconnecting to try again: ${asError(error).message}`,
      { cause: error },
    );
    this.host.report(failure);
    stream.connection.drop(failure);
  }

  private readHistory(stream: Stream, fromMs: number, toMs: number | undefined, signal: AbortSignal) {
    const { context, options, ledger } = this.host;
    return readCatchUpWindows({
      context,
      taskIds: stream.historyTasks,
      fromMs,
      ...(toMs === undefined ? {} : { toMs }),
      concurrency: options.backfillConcurrency,
      knownOrder: (key) => stream.admission.orderOf(key),
      onDuplicate: () => {
        ledger.counters.duplicatesDropped++;
      },
      // Without evidence (basic form, one second, nothing seen yet) newest-first is the better
      // guess: it is how such history endpoints list events. Any evidence overrides it.
      fallbackDirection: () => this.historyOrder ?? 'desc',
      onDirection: (direction) => {
        this.historyOrder = direction;
      },
      onMalformed: (error) => {
        ledger.counters.malformed++;
        this.host.report(error);
      },
      signal,
    });
  }

  /**
   * Queues one catch-up item, waiting for room under the `pause` policy first. Admission comes
   * only after the wait, together with the push: an item admitted and then abandoned (its socket
   * dropped during the wait) would be taken for a duplicate by the next catch-up, and lost.
   */
  private async queueWithRoom(item: Item, signal: AbortSignal): Promise<boolean> {
    const { queue, options } = this.host;
    if (options.overflow === 'pause' && queue.length >= options.highWaterMark) {
      await Promise.race([queue.waitForRoom(), aborted(signal)]);
      if (signal.aborted) return false;
    }
    this.enqueue(item);
    return true;
  }

  /** Frames that waited while the socket opened (or during the catch-up) are live events like any other. */
  private goLive(stream: Stream, readBack?: AbortController): void {
    for (const item of stream.pending) this.enqueue(item);
    this.host.dispatch(stream, readBack ? { type: 'live', readBack } : { type: 'live' });
  }

  private enqueue(item: Item): void {
    if (this.host.ledger.admit(item)) this.host.queue.push(item);
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The read-back after a catch-up: [fromMs, toMs], its recent part from `recentFromMs` read first, at `atMs`. */
interface ReadBackSpan {
  fromMs: number;
  recentFromMs: number;
  toMs: number;
  atMs: number;
}
