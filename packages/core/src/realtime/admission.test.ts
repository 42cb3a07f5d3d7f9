import { describe, expect, it } from 'vitest';
import { Admission } from './admission.js';
import { compressIds, expandIds } from './position.js';

function deliverAll(admission: Admission, entries: Array<[string | number, number]>) {
  for (const [key, time] of entries) {
    const order = admission.admit(key, time);
    if (order !== undefined) admission.delivered(order, time);
  }
}

describe('Admission', () => {
  it('admits a key once, whatever its time', () => {
    const admission = new Admission(3_000, 100, 0);
    expect(admission.admit('a', 10_000)).toBe(0);
    expect(admission.admit('a', 10_000)).toBeUndefined();
    // Older than everything admitted so far: still admitted (out of order is not a duplicate).
    expect(admission.admit('b', 1_000)).toBe(1);
    expect(admission.admit(7, 500)).toBe(2);
    expect(admission.admit(7, 500)).toBeUndefined();
  });

  it('forgets delivered keys older than the retention before the newest event', () => {
    const admission = new Admission(3_000, 100, 0);
    deliverAll(admission, [
      ['old', 1_000],
      ['mid', 3_000],
      ['new', 5_000],
    ]);
    expect(admission.orderOf('old')).toBeUndefined();
    expect(admission.orderOf('mid')).toBe(1);
    expect(admission.size).toBe(2);
  });

  it('keeps undelivered keys past the retention: the position still needs them', () => {
    const admission = new Admission(3_000, 100, 0);
    admission.admit('waiting', 1_000);
    deliverAll(admission, [['late', 9_000]]);
    expect(admission.orderOf('waiting')).toBe(0);
  });

  it('never holds more than its capacity, and moves the horizon past what it forgot', () => {
    const admission = new Admission(Number.MAX_SAFE_INTEGER, 50, 0);
    for (let i = 0; i < 10_000; i++) {
      const order = admission.admit(`k${i}`, 1_000 + i * 10);
      admission.delivered(order as number, 1_000 + i * 10);
    }
    expect(admission.size).toBe(50);
    expect(admission.capacityReached).toBe(true);
    // k9949, the last one forgotten, is at 100,490 ms: a catch-up starts after its whole second.
    expect(admission.catchUpRange(120_000, 2_000).fromMs).toBe(101_000);
  });

  it('starts a catch-up the allowed lateness before the newest admitted event, never before its floor', () => {
    const admission = new Admission(200_000, 100, 50_000);
    expect(admission.catchUpRange(120_000, 2_000).fromMs).toBe(50_000);
    admission.admit(1, 300_000);
    expect(admission.catchUpRange(120_000, 2_000).fromMs).toBe(178_000);
  });

  it('saves only delivered keys, from the lateness before the newest delivered event', () => {
    const admission = new Admission(200_000, 1_000, 0);
    deliverAll(admission, [
      [1, 100_000],
      [2, 250_000],
      [3, 251_000],
      [5, 252_000],
      ['basic|1', 252_000],
    ]);
    admission.admit(6, 253_000); // queued, not delivered yet
    const record = admission.record(120_000, 2_000);
    expect(record.fromMs).toBe(130_000);
    expect(record.newestMs).toBe(252_000);
    expect(record.keys).toEqual([2, 3, 5, 'basic|1']);
  });

  it("knows the keys of a fresh start's second without delivering them, ids as one run", () => {
    const admission = new Admission(3_000, 100, 0);
    // History may list them newest first; text keys (basic form) may come in between.
    const keys: Array<string | number> = [1005, 1004, 'x', 1003, 1002, 1001, 1000];
    admission.ignoreAll(keys, 7_000);
    for (const key of keys) expect(admission.admit(key, 7_000)).toBeUndefined();
    expect(admission.admit(1006, 7_000)).toBe(7);
    // Nothing waits for delivery: a save lists the known keys in admission order, ids ascending.
    admission.delivered(7, 7_000);
    expect(admission.record(3_000, 0).keys).toEqual([1000, 1001, 1002, 1003, 1004, 1005, 'x', 1006]);
    // The point of sorting: ids that follow one another cost one run, not a key each. Read
    // through the private field, since no caller needs to know how keys are held.
    const held = (admission as unknown as { keys: { oldestCount(): number } }).keys;
    expect(held.oldestCount()).toBe(6);
  });

  it('restores a saved position: its keys are duplicates, the rest is new', () => {
    const admission = new Admission(200_000, 1_000, 0);
    admission.restore({ fromMs: 130_000, newestMs: 252_000, keys: [2, 3, 5] });
    expect(admission.admit(3, 251_000)).toBeUndefined();
    expect(admission.admit(4, 251_000)).toBeDefined();
    expect(admission.catchUpRange(120_000, 2_000).fromMs).toBe(130_000);
  });

  it('splits a catch-up: the missed part from just before the newest event, the read-back before it', () => {
    const admission = new Admission(200_000, 1_000, 50_000);
    expect(admission.catchUpRange(120_000, 2_000)).toEqual({ fromMs: 50_000, missedFromMs: undefined });
    deliverAll(admission, [[1, 300_000]]);
    expect(admission.catchUpRange(120_000, 2_000)).toEqual({ fromMs: 178_000, missedFromMs: 298_000 });
  });

  it('owes the read-back until it is read and delivered: catch-ups, saves and memory wait for it', () => {
    const admission = new Admission(100_000, 1_000, 0);
    deliverAll(admission, [
      ['before', 10_000],
      ['newest', 100_000],
    ]);
    admission.owe(10_000);
    // Live events move on far past the retention; the owed read-back still starts at 10 s.
    deliverAll(admission, [['live', 200_000]]);
    expect(admission.catchUpRange(3_000, 0).fromMs).toBe(10_000);
    expect(admission.record(3_000, 0).fromMs).toBe(10_000);
    expect(admission.orderOf('before')).toBeDefined();
    // A late event found at 50 s is admitted but not delivered: the read-back up to 60 s is read,
    // yet owed until that event is acknowledged.
    const late = admission.admit('late', 50_000) as number;
    admission.readBack(60_000);
    expect(admission.record(3_000, 0).fromMs).toBe(10_000);
    admission.delivered(late, 50_000);
    expect(admission.record(3_000, 0).fromMs).toBe(60_000);
    admission.readBack(undefined);
    expect(admission.record(3_000, 0).fromMs).toBe(197_000);
    // Nothing owed: the old keys may go with the next admission.
    deliverAll(admission, [['next', 200_500]]);
    expect(admission.orderOf('before')).toBeUndefined();
  });
});

describe('id runs', () => {
  it('compress consecutive ids and expand back', () => {
    const ids = [9, 1, 2, 3, 7, 8, 12];
    const runs = compressIds(ids);
    expect(runs).toEqual([[1, 3], [7, 9], 12]);
    expect(expandIds(runs)).toEqual([1, 2, 3, 7, 8, 9, 12]);
  });
});
