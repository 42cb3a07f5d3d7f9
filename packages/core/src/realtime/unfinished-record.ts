import type { StoredPosition } from '../ports.js';

/** One unit (an event or a batch) handed over and not acknowledged. */
export interface UnfinishedEntry {
  /** The attempt it was handed over with, counting the runs before this one. */
  attempt: number;
  /** When that attempt began. */
  atMs: number;
  /** It finished on that attempt after the streams were last saved (see `finished`). */
  finished?: true;
}

/** An entry as stored: made once per hand-over, so a save per hand-over only copies references. */
type StoredEntry = NonNullable<StoredPosition['unfinished']>[string];

/** A unit an earlier run left unfinished that has not come again within this long is forgotten. */
export const unfinishedMaxAgeMs = 24 * 60 * 60_000;

/**
 * The units handed over and not acknowledged, by key, kept in the stored position when the host
 * asks (`position.unfinished`). A host that may have done the work of a unit it never
 * acknowledged needs this to tell, after a restart, a unit that was cut off mid-work from one
 * never handed over: n8n refuses a second execution under a key it has seen, so a unit on the
 * record comes again with the next attempt (and n8n's trigger a new key), and the others under
 * their first.
 *
 * Attempts count across runs: a unit an earlier run handed over on attempt 2 is handed over on 3.
 * With `rerun` off (the host let the earlier run's work finish, as n8n does on a deactivation),
 * what an earlier run left is not read, and every unit starts at attempt 1.
 */
export class UnfinishedRecord {
  /** Left unfinished by an earlier run and not handed over again yet: kept for a further restart. */
  private readonly carried = new Map<string, StoredEntry>();
  /** Handed over in this run and not finished. */
  private readonly out = new Map<string, StoredEntry>();
  /** Finished on a later attempt since the streams were last saved: see `finished`. */
  private readonly settled = new Map<string, StoredEntry>();

  constructor(private readonly rerun: boolean) {}

  /** What the stored position held, read once at the start (ignored without `rerun`). */
  restore(entries: ReadonlyMap<string, UnfinishedEntry>, nowMs: number): void {
    if (!this.rerun) return;
    for (const [key, entry] of entries)
      if (nowMs - entry.atMs < unfinishedMaxAgeMs)
        this.carried.set(key, {
          attempt: entry.attempt,
          at: new Date(entry.atMs).toISOString(),
          ...(entry.finished && { finished: true }),
        });
  }

  /** Whether an earlier run left units that have not come again yet (then `firstAttempt` looks). */
  get carrying(): boolean {
    return this.carried.size > 0;
  }

  /**
   * The attempt a unit is first handed over with in this run: one more than the calls earlier runs
   * made, or 1. A unit an earlier run finished comes again on the attempt it finished on: the host
   * has that attempt's key on its books (n8n refuses it).
   */
  firstAttempt(key: string): number {
    const carried = this.carried.get(key);
    if (carried === undefined) return 1;
    this.carried.delete(key);
    return carried.finished ? carried.attempt : carried.attempt + 1;
  }

  /** A unit is handed over on `attempt` (counting earlier runs'): it is on the record until finished. */
  handing(key: string, attempt: number, nowMs: number): void {
    this.out.set(key, { attempt, at: new Date(nowMs).toISOString() });
  }

  /**
   * The unit was acknowledged, or let go by the policy. Until the streams are saved again they do
   * not cover it, and a restart catches it up again: on attempt 1 it would run again wherever that
   * first attempt never reached the host's books (n8n reclaims the key of an execution a kill left
   * unstarted). So a unit that finished on a later attempt stays on the record as finished, and
   * comes again under the key the host finished.
   */
  finished(key: string): void {
    const entry = this.out.get(key);
    this.out.delete(key);
    if (entry !== undefined && entry.attempt > 1) this.settled.set(key, { ...entry, finished: true });
  }

  /** The streams as they stand now are being saved: they cover every unit finished so far. */
  streamsSaved(): void {
    this.settled.clear();
  }

  /**
   * The stored form: what this run has out or finished since the streams were last saved, and what
   * earlier runs left that did not come again.
   */
  stored(): StoredPosition['unfinished'] {
    if (this.out.size === 0 && this.carried.size === 0 && this.settled.size === 0) return undefined;
    const stored: NonNullable<StoredPosition['unfinished']> = {};
    for (const [key, entry] of this.carried) stored[key] = entry;
    for (const [key, entry] of this.settled) stored[key] = entry;
    for (const [key, entry] of this.out) stored[key] = entry;
    return stored;
  }
}
