import { asError } from '../errors/as-error.js';
import { ObservationError } from '../errors/observation-error.js';
import { readCatchUpWindows } from './catch-up.js';
import type { RealtimeContext } from './context.js';
import type { DeliveryLedger } from './delivery-ledger.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { parseFrame } from './frame-parser.js';
import { type HistoryDirection, mergeCatchUp } from './ordered-merge.js';
import { type Item, newItem, type Stream, type StreamAction } from './stream.js';
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
    const parsed = parseFrame(data);
    if (!parsed.ok) {
      ledger.counters.malformed++;
      this.host.report(parsed.error);
      return;
    }
    const item = newItem(parsed.event, parsed.raw, 'live', stream);
    if (stream.phase === 'live') this.enqueue(item);
    else this.host.dispatch(stream, { type: 'held', item });
  }

  /**
   * A socket is open. A fresh stream goes live at once; one that resumes (a stored position, a
   * look-back, a new task, any reconnect) first catches up from history, while live frames wait.
   * A stream that had events reads what it missed first and goes live; the allowed lateness of
   * history before that, where only events published late can be new, is read after (`readBack`).
   * Only after an outage shorter than the lateness: the keys the read-back may meet again are kept
   * until it ends, so an outage of any length would keep that many more. After a longer one, the
   * read-back is a small part of the catch-up, which reads everything in one pass as before.
   */
  opened(stream: Stream): void {
    if (!stream.started && stream.startFromMs === undefined) {
      this.goLive(stream);
      return;
    }
    const { options, context } = this.host;
    const range = stream.admission.catchUpRange(options.allowedLatenessMs, options.overlapMs);
    const oldest = context.clock.now() - options.maxLookBackMs;
    // A second of grace: a look-back equal to the limit was computed a moment earlier.
    if (range.fromMs < oldest - 1_000) {
      this.host.report(
        new ObservationError(
          'BACKFILL_TRUNCATED',
          `Catching up ${stream.label} only from ${new Date(oldest).toISOString()}: events before that are older than maxLookBackMs (${options.maxLookBackMs} ms) and are not fetched`,
        ),
      );
    }
    const from = Math.max(range.fromMs, oldest);
    const missed = range.missedFromMs;
    const split =
      missed !== undefined && missed > from && context.clock.now() - missed <= options.allowedLatenessMs;
    const missedFrom = split ? missed : undefined;
    const controller = new AbortController();
    this.host.dispatch(stream, { type: 'catching-up', catchUp: controller });
    if (missedFrom !== undefined) stream.admission.owe(from);
    void this.resume(stream, from, missedFrom, controller.signal);
  }

  private async resume(
    stream: Stream,
    from: number,
    missedFrom: number | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const live = await this.catchUp(stream, missedFrom ?? from, signal);
    if (live) {
      if (missedFrom === undefined) stream.admission.readBack(undefined);
      else await this.readBack(stream, from, missedFrom, signal);
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
   * The allowed lateness of history before what a reconnect missed, read while the stream is
   * live: only events published late can be new there, and they are delivered as they are found,
   * after newer ones (as they would have been live). Until it is read and delivered the admission
   * owes it, so a save or a later catch-up never starts after it.
   */
  private async readBack(stream: Stream, fromMs: number, toMs: number, signal: AbortSignal): Promise<void> {
    this.host.dispatch(stream, { type: 'reading-back', readingBack: true });
    try {
      for await (const window of this.readHistory(stream, fromMs, toMs, signal)) {
        for (const entry of window.items) {
          // Before the horizon the keys were forgotten (more events than the dedupe memory holds,
          // reported once as DEDUPE_CAPACITY): such an event may have been delivered already.
          if (entry.event.occurredAt.getTime() < stream.admission.horizon) continue;
          if (!(await this.queueWithRoom(newItem(entry.event, entry.raw, 'backfill', stream), signal)))
            return;
        }
        if (signal.aborted) return;
        stream.admission.readBack(window.final ? undefined : window.endMs);
      }
    } catch (error) {
      this.backfillFailed(stream, error, signal);
    } finally {
      this.host.dispatch(stream, { type: 'reading-back', readingBack: false });
    }
  }

  private backfillFailed(stream: Stream, error: unknown, signal: AbortSignal): void {
    if (signal.aborted) return;
    const failure = new ObservationError(
      'BACKFILL_FAILED',
      `Catching up ${stream.label} from history failed, reconnecting to try again: ${asError(error).message}`,
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
  private goLive(stream: Stream): void {
    for (const item of stream.pending) this.enqueue(item);
    this.host.dispatch(stream, { type: 'live' });
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
