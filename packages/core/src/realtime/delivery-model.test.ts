import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredPosition } from '../ports.js';
import { makeEvent } from './__tests__/make-event.js';
import { manualClock } from './__tests__/manual-clock.js';
import { DeliveryQueue, type GaveUp } from './delivery-queue.js';
import { batchIdentity } from './event-key.js';
import { HostPort } from './host-port.js';
import { positionFormat, positionVersion, readPosition } from './position.js';
import type { Item, Stream } from './stream.js';
import type { EventMeta } from './types.js';
import { UnfinishedRecord } from './unfinished-record.js';

/**
 * A model run of core's delivery books: the delivery queue (hand-over, deadline, attempts, order
 * of completion), the host port with its record of unfinished units, and the position a save
 * reads from them, through random sequences of admit, settle ok or failed, time passing, save, and
 * crash with a restart from what was saved. A small reference model follows each event (the
 * attempt it was last handed over with, and whether that attempt ended) and checks, as it happens:
 * - the position never passes an event whose attempt has not ended (delivered in order, only once
 *   settled or given up), and a save covers exactly the events that ended;
 * - a restarted run hands over again only what its save did not cover, and each with the attempt
 *   its record says (one more than an unfinished one, the same as one that finished after the save);
 * - at most `maxInFlight` attempts are out; a unit is given up once, after its attempts;
 * - at the end, with a handler that settles everything, nothing admitted is left uncovered.
 * The store is a JSON copy read back through `readPosition`, as a host's store is.
 */

interface Policy {
  maxInFlight: number;
  attempts: number;
  retry: boolean;
  pauseMs: number;
  deadlineMs: number;
}

/** A handler call not settled by the test yet (it may be stale: late, or of a crashed run). */
interface Call {
  id: number;
  attempt: number;
  run: number;
  resolve(): void;
  reject(error: Error): void;
}

/** What the reference model knows of one admitted event. */
interface Known {
  /** The attempt it was last handed over with (0: never). */
  attempt: number;
  /** That attempt ended: acknowledged, or given up by the policy. */
  ended: boolean;
  /** When that attempt is late (the policy's deadline after it was handed over). */
  due: number;
  /** Its attempt was acknowledged at least once (the work was done). */
  acknowledged: boolean;
  gaveUp: number;
}

/** What the model knew of an event at the store's last write: what a restart reads. */
interface AtWrite {
  attempt: number;
  ended: boolean;
}

const SCOPE = 'model';
const STREAM = { label: 'all tasks' } as unknown as Stream;

/** The real books, one run at a time, and the model beside them. */
class Books {
  readonly clock = manualClock(Date.UTC(2026, 11, 1));
  readonly known = new Map<number, Known>();
  /** The position in the store: ids its streams cover, and the record of unfinished units (JSON). */
  stored = JSON.stringify({ covered: [] as number[], unfinished: undefined as StoredPosition['unfinished'] });
  calls: Call[] = [];
  run = 0;
  /** What the streams of this run cover: the stored cover, then what the queue reported delivered. */
  covered = new Set<number>();
  /** The streams as last saved whole: a hand-over save writes these with the record. */
  lastStreams: number[] = [];
  queue!: DeliveryQueue<Item>;
  record!: UnfinishedRecord;
  /** Handed over in this run already (a first hand-over's attempt comes from the record). */
  handedThisRun = new Set<number>();
  /** The model's events as the store's last write left them. */
  atWrite = new Map<number, AtWrite>();
  /** As the store held them when this run started: a first hand-over's attempt comes from here. */
  atStart = new Map<number, AtWrite>();

  /**
   * What broke a rule, in order. The checks run inside the queue's calls (a handler, the sink),
   * where a thrown assertion would be taken for the handler's own failure: they are collected and
   * asserted after each step.
   */
  readonly problems: string[] = [];

  constructor(readonly policy: Policy) {
    this.start();
  }

  private check(holds: boolean, problem: string): void {
    if (!holds) this.problems.push(`run ${this.run}: ${problem}`);
  }

  /** A run starts from what the store holds: its record restored, what it does not cover caught up. */
  start(): void {
    this.run++;
    this.handedThisRun = new Set();
    this.atStart = this.atWrite;
    const { covered, unfinished } = JSON.parse(this.stored) as {
      covered: number[];
      unfinished: StoredPosition['unfinished'];
    };
    this.covered = new Set(covered);
    this.lastStreams = covered;
    this.record = new UnfinishedRecord(true);
    const reading = readPosition(
      { format: positionFormat, version: positionVersion, scope: SCOPE, streams: {}, unfinished },
      SCOPE,
    );
    if (reading.kind !== 'restored') throw new Error(`stored position not read back: ${reading.kind}`);
    this.record.restore(reading.unfinished, this.clock.clock.now());
    const { policy } = this;
    const run = this.run;
    const port = new HostPort(
      {
        onEvent: (event, meta) => {
          const id = event.id as number;
          this.handed(id, meta.attempt);
          return new Promise<void>((resolve, reject) =>
            this.calls.push({ id, attempt: meta.attempt, run, resolve, reject }),
          );
        },
      },
      {
        filtered: false,
        prepare: undefined,
        record: { record: this.record, save: () => this.handOverSave(), now: () => this.clock.clock.now() },
      },
    );
    this.queue = new DeliveryQueue<Item>(
      {
        highWaterMark: 10_000,
        overflow: 'pause',
        maxInFlight: policy.maxInFlight,
        ack: {
          deadlineMs: policy.deadlineMs,
          attempts: policy.attempts,
          retry: policy.retry,
          ...(policy.pauseMs > 0 && { retryPausesMs: [policy.pauseMs, policy.pauseMs * 2] }),
          clock: this.clock.clock,
        },
      },
      port,
      {
        delivered: (item) => this.delivered(item.event.id as number),
        dropped: () => {
          throw new Error('nothing is dropped under pause');
        },
        skipped: () => {
          throw new Error('nothing is skipped under pause');
        },
        failed: () => undefined,
        gaveUp: (items, gaveUp) => this.gaveUp(items, gaveUp),
        pressure: () => undefined,
      },
    );
    // What the store does not cover is caught up again: whatever became of it before the crash.
    for (const [id, known] of [...this.known].sort(([a], [b]) => a - b)) {
      if (this.covered.has(id)) continue;
      known.ended = false;
      this.queue.push(item(id));
    }
  }

  admit(count: number): void {
    for (let i = 0; i < count; i++) {
      const id = this.known.size + 1;
      this.known.set(id, { attempt: 0, ended: false, due: 0, acknowledged: false, gaveUp: 0 });
      this.queue.push(item(id));
    }
  }

  /**
   * The handler is called: with the attempt the model expects, within `maxInFlight`, and with the
   * record of it already in the store.
   */
  private handed(id: number, attempt: number): void {
    const known = this.known.get(id) as Known;
    const first = !this.handedThisRun.has(id);
    this.handedThisRun.add(id);
    // A first hand-over in a run takes its attempt from what the store held at the crash: one more
    // than an attempt left unfinished, the same as one that ended after the streams' last save.
    const before = first ? this.atStart.get(id) : { attempt: known.attempt, ended: false };
    const expected = before === undefined ? 1 : before.ended ? before.attempt : before.attempt + 1;
    this.check(attempt === expected, `event ${id} handed over on attempt ${attempt}, not ${expected}`);
    // A crash's unfinished attempt is always handed over again (else it is lost); a failed one
    // only while the attempts made, in every run, are fewer than the policy's.
    if (!first)
      this.check(
        this.policy.retry && known.attempt < this.policy.attempts,
        `event ${id} tried again after attempt ${known.attempt} of at most ${this.policy.attempts}${this.policy.retry ? '' : ' without retry'}`,
      );
    const stored = (JSON.parse(this.stored) as { unfinished?: StoredPosition['unfinished'] }).unfinished;
    const recorded = stored?.[batchIdentity([item(id).event])]?.attempt;
    this.check(recorded === attempt, `event ${id} handed over on attempt ${attempt}, recorded ${recorded}`);
    known.attempt = attempt;
    known.ended = false;
    known.due = this.clock.clock.now() + this.policy.deadlineMs;
    this.atWrite.set(id, { attempt, ended: false });
    const out = this.out();
    this.check(out <= this.policy.maxInFlight, `${out} attempts out at once`);
  }

  /** Attempts of this run handed over and not ended (the one being handed included). */
  private out(): number {
    let out = 0;
    for (const id of this.handedThisRun) if (!(this.known.get(id) as Known).ended) out++;
    return out;
  }

  /** The queue reports an event done: only once its attempt ended, and after every earlier one. */
  private delivered(id: number): void {
    const known = this.known.get(id) as Known;
    this.check(known.ended, `event ${id} delivered before its attempt ended`);
    for (let earlier = 1; earlier < id; earlier++)
      this.check(this.covered.has(earlier), `event ${id} delivered before event ${earlier}`);
    this.check(!this.covered.has(id), `event ${id} delivered twice`);
    this.covered.add(id);
  }

  private gaveUp(items: Item[], gaveUp: GaveUp): void {
    for (const { event } of items) {
      const known = this.known.get(event.id as number) as Known;
      this.check(!known.ended, `event ${event.id} given up after its attempt ended`);
      // Let go after its last attempt: with retry, once the attempts of every run reach the policy's.
      this.check(
        !this.policy.retry || known.attempt >= this.policy.attempts,
        `event ${event.id} given up on attempt ${known.attempt} of ${this.policy.attempts}`,
      );
      this.check(gaveUp.attempts >= 1, `event ${event.id} given up after ${gaveUp.attempts} calls`);
      known.gaveUp++;
      known.ended = true;
    }
  }

  /** The test settles one call (stale ones are ignored by the queue, and by the model). */
  async settle(index: number, ok: boolean): Promise<void> {
    if (this.calls.length === 0) return;
    const [call] = this.calls.splice(index % this.calls.length, 1) as [Call];
    const known = this.known.get(call.id) as Known;
    const current =
      call.run === this.run &&
      call.attempt === known.attempt &&
      !known.ended &&
      this.clock.clock.now() < known.due;
    if (ok) {
      if (current) {
        known.ended = true;
        known.acknowledged = true;
      }
      call.resolve();
    } else call.reject(new Error(`attempt ${call.attempt} of event ${call.id} failed`));
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Time passes: deadlines fall due (late attempts), pauses end (next attempts). */
  async advance(ms: number): Promise<void> {
    // An attempt the deadline passes is late: the model hears of it from what the queue does next
    // (hands it over again, or gives it up).
    await this.clock.advance(ms);
  }

  /** A save of the whole position: the streams as they stand and the record. */
  save(): void {
    this.record.streamsSaved();
    const ahead = this.queue.settledAhead().map(({ event }) => event.id as number);
    const streams = [...this.covered, ...ahead].sort((a, b) => a - b);
    const ended = [...this.known].filter(([, known]) => known.ended).map(([id]) => id);
    expect(streams, 'a save covers exactly the events whose attempt ended').toEqual(ended);
    this.lastStreams = streams;
    this.write({ covered: streams, unfinished: this.record.stored() });
  }

  private write(position: { covered: number[]; unfinished: StoredPosition['unfinished'] }): void {
    this.stored = JSON.stringify(position);
    // The record carries what an earlier run left of an event not handed over in this one.
    const atWrite = new Map<number, AtWrite>();
    for (const [id, { attempt, ended }] of this.known) {
      const carried = this.handedThisRun.has(id) ? { attempt, ended } : this.atStart.get(id);
      if (carried !== undefined) atWrite.set(id, carried);
    }
    this.atWrite = atWrite;
  }

  /** Before each hand-over: the record written with the streams as last saved (position-saver's handOver). */
  private handOverSave(): void {
    this.write({ covered: this.lastStreams, unfinished: this.record.stored() });
  }

  /** A crash: this run's queue and calls are gone; a new run starts from the store. */
  crash(): void {
    this.queue.close();
    this.calls = [];
    this.start();
  }

  /** The end: a handler that settles everything, time enough for pauses, then a save. */
  async finish(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      while (this.calls.length > 0) await this.settle(0, true);
      this.save();
      if (this.covered.size === this.known.size) break;
      await this.advance(this.policy.deadlineMs + this.policy.pauseMs * 2 + 1);
    }
    expect(this.problems).toEqual([]);
    const uncovered = [...this.known.keys()].filter((id) => !this.covered.has(id));
    expect(uncovered, 'admitted events never covered').toEqual([]);
    for (const [id, known] of this.known) {
      expect(known.acknowledged || known.gaveUp > 0, `event ${id} neither acknowledged nor given up`).toBe(
        true,
      );
    }
  }
}

function item(id: number): Item {
  const meta: EventMeta = { raw: null, source: 'live', attempt: 1 };
  return { event: makeEvent({ id, second: id }), meta, stream: STREAM, order: id, wanted: true };
}

type Command = fc.AsyncCommand<object, Books>;

const command = (label: string, run: (books: Books) => void | Promise<void>): Command => ({
  check: () => true,
  run: async (_model, books) => {
    await run(books);
    expect(books.problems).toEqual([]);
  },
  toString: () => label,
});

const commands = [
  fc.integer({ min: 1, max: 4 }).map((count) => command(`admit ${count}`, (books) => books.admit(count))),
  fc
    .tuple(fc.nat(20), fc.boolean())
    .map(([index, ok]) =>
      command(`settle #${index} ${ok ? 'ok' : 'failed'}`, (books) => books.settle(index, ok)),
    ),
  fc.integer({ min: 100, max: 2_500 }).map((ms) => command(`advance ${ms} ms`, (books) => books.advance(ms))),
  fc.constant(command('save', (books) => books.save())),
  fc.constant(command('crash', (books) => books.crash())),
];

const policies = fc.record({
  maxInFlight: fc.integer({ min: 1, max: 4 }),
  attempts: fc.integer({ min: 1, max: 3 }),
  retry: fc.boolean(),
  pauseMs: fc.constantFrom(0, 400),
  deadlineMs: fc.constant(1_000),
});

describe('delivery books, model run', () => {
  it('random admit, settle, time, save and crash: no loss, position never past an unfinished event, attempts across restarts', async () => {
    await fc.assert(
      fc.asyncProperty(policies, fc.commands(commands, { maxCommands: 60 }), async (policy, run) => {
        const books = new Books(policy);
        await fc.asyncModelRun(() => ({ model: {}, real: books }), run);
        await books.finish();
      }),
      // MODEL_RUNS: more sequences when hunting (2,000 took about 25 s here).
      { numRuns: Number(process.env.MODEL_RUNS ?? 150) },
    );
  });
});
