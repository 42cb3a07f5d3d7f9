import { timestampMs } from '../normalize/read-timestamp.js';
import type { StoredCooldown, StoredPosition, StreamPosition } from '../ports.js';
import { stableHash } from '../stable-hash.js';
import type { StreamRecord } from './admission.js';
import { readCooldown } from './cooldown.js';
import type { EventKey } from './event-key.js';
import type { UnfinishedEntry } from './unfinished-record.js';

export const positionFormat = 'observation-position';
export const positionVersion = 1;

export type PositionReading =
  | { kind: 'none' }
  | {
      kind: 'restored';
      streams: Map<string, StreamRecord>;
      unfinished: Map<string, UnfinishedEntry>;
      /** The `cooldown` option's state, when one was stored and is sound. */
      cooldown?: StoredCooldown;
      /** What is wrong with a stored cooldown state: only the cooldown starts afresh. */
      cooldownProblem?: string;
    }
  /** Every stream starts from `stream` (an earlier version's single cursor). */
  | { kind: 'legacy'; stream: StreamRecord; problem: string }
  | { kind: 'unusable'; problem: string }
  /** Another service or task selection: the settings changed since it was stored. */
  | { kind: 'foreign' }
  /** Saved by a first start the service refused before it ever connected: nothing is owed. */
  | { kind: 'never-connected' };

/** Keys one stored stream may hold: a position is never an unbounded allocation. */
const maxStoredKeys = 1_000_000;

/**
 * Reads what a host stored. Never throws: a missing value is `none`; one stored for another
 * service or task selection is `foreign` (the settings changed: a new subscription, in effect);
 * one a refused first start left is `never-connected` (the same, once the setting is fixed); a
 * corrupt or unknown-version value is `unusable` with the reason, for the subscription to report
 * once and replace with its look-back. The cursor `{ time, id? }` that
 * earlier versions stored is migrated (`legacy`).
 */
export function readPosition(value: unknown, scope: string): PositionReading {
  if (value === undefined || value === null) return { kind: 'none' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'unusable', problem: `the stored position is not an object (${typeof value})` };
  }
  const record = value as Record<string, unknown>;
  if (record.format === undefined && typeof record.time === 'string') return readLegacy(record);
  if (record.format !== positionFormat) {
    return { kind: 'unusable', problem: 'the stored value is not an observation position' };
  }
  if (record.version !== positionVersion) {
    return {
      kind: 'unusable',
      problem: `the stored position has version ${JSON.stringify(record.version)}; this version reads ${positionVersion}`,
    };
  }
  if (record.scope !== scope) return { kind: 'foreign' };
  if (record.neverConnected === true) return { kind: 'never-connected' };
  const streams = record.streams;
  if (typeof streams !== 'object' || streams === null || Array.isArray(streams)) {
    return { kind: 'unusable', problem: 'the stored position has no streams' };
  }
  const restored = new Map<string, StreamRecord>();
  for (const [label, stream] of Object.entries(streams)) {
    const parsed = readStream(stream);
    if (typeof parsed === 'string') {
      return { kind: 'unusable', problem: `the stored position of ${label} is corrupt: ${parsed}` };
    }
    restored.set(label, parsed);
  }
  const unfinished = readUnfinished(record.unfinished);
  if (typeof unfinished === 'string') {
    return {
      kind: 'unusable',
      problem: `the stored position's unfinished events are corrupt: ${unfinished}`,
    };
  }
  const reading: PositionReading = { kind: 'restored', streams: restored, unfinished };
  if (record.cooldown !== undefined) {
    // Tolerant: a cooldown that cannot be read costs an alert too many, never the position.
    const cooldown = readCooldown(record.cooldown);
    if (typeof cooldown === 'string') reading.cooldownProblem = cooldown;
    else reading.cooldown = cooldown;
  }
  return reading;
}

/** The units an earlier run left unfinished (`position.unfinished`), or what is wrong with them. */
function readUnfinished(value: unknown): Map<string, UnfinishedEntry> | string {
  const entries = new Map<string, UnfinishedEntry>();
  if (value === undefined) return entries;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  for (const [key, entry] of Object.entries(value)) {
    const { attempt, at, finished } = (entry ?? {}) as Record<string, unknown>;
    const atMs = typeof at === 'string' ? Date.parse(at) : Number.NaN;
    if (
      !Number.isSafeInteger(attempt) ||
      (attempt as number) < 1 ||
      !Number.isFinite(atMs) ||
      (finished !== undefined && finished !== true)
    )
      return `${key} holds ${JSON.stringify(entry)}`;
    if (entries.size >= maxStoredKeys) return `more than ${maxStoredKeys} entries`;
    const read: UnfinishedEntry = { attempt: attempt as number, atMs };
    if (finished) read.finished = true;
    entries.set(key, read);
  }
  return entries;
}

function readStream(value: unknown): StreamRecord | string {
  if (typeof value !== 'object' || value === null) return 'not an object';
  const { from, newest, ids, keys } = value as Record<string, unknown>;
  const fromMs = typeof from === 'string' ? Date.parse(from) : Number.NaN;
  if (!Number.isFinite(fromMs)) return `from is ${JSON.stringify(from)}, not an ISO time`;
  let newestMs: number | undefined;
  if (newest !== undefined) {
    newestMs = typeof newest === 'string' ? Date.parse(newest) : Number.NaN;
    if (!Number.isFinite(newestMs)) return `newest is ${JSON.stringify(newest)}, not an ISO time`;
  }
  const restoredKeys: EventKey[] = [];
  if (ids !== undefined) {
    if (!Array.isArray(ids)) return 'ids is not a list';
    let count = 0;
    for (const entry of ids) {
      if (Number.isSafeInteger(entry) && (entry as number) > 0) {
        count++;
        continue;
      }
      const run = entry as unknown[];
      const valid =
        Array.isArray(run) &&
        run.length === 2 &&
        Number.isSafeInteger(run[0]) &&
        Number.isSafeInteger(run[1]) &&
        (run[0] as number) > 0 &&
        (run[1] as number) >= (run[0] as number);
      if (!valid) return `ids holds ${JSON.stringify(entry)}`;
      count += (run[1] as number) - (run[0] as number) + 1;
      if (count > maxStoredKeys) return `ids holds more than ${maxStoredKeys} ids`;
    }
    restoredKeys.push(...expandIds(ids as Array<number | [number, number]>));
  }
  if (keys !== undefined) {
    if (
      !Array.isArray(keys) ||
      keys.length > maxStoredKeys ||
      !keys.every((key) => typeof key === 'string')
    ) {
      return 'keys is not a list of strings';
    }
    restoredKeys.push(...(keys as string[]));
  }
  return { fromMs, newestMs, keys: restoredKeys };
}

/**
 * Earlier versions stored the last event's `{ time, id? }`. It is read as a position that starts
 * at that second and skips that one event: events of the same second that came before it may be
 * delivered again (a repeat is better than a loss), which the subscription reports once.
 */
function readLegacy(record: Record<string, unknown>): PositionReading {
  const time = record.time as string;
  const ms = timestampMs(time);
  if (ms === undefined) {
    return {
      kind: 'unusable',
      problem: `the stored cursor has time ${JSON.stringify(time)}, not an ISO time`,
    };
  }
  const id = record.id;
  const keys: EventKey[] = Number.isSafeInteger(id) ? [id as number] : [];
  const fromMs = Math.floor(ms / 1000) * 1000;
  return {
    kind: 'legacy',
    stream: { fromMs, newestMs: ms, keys },
    problem:
      'the stored cursor has the format of an earlier version; catching up from it, events of its last second may be delivered again',
  };
}

/**
 * A short, stable name for "this service, these tasks": a stored position from another service
 * or selection must not be applied. Not a secret and not an address.
 */
export function positionScope(
  wsBaseUrl: string,
  serviceId: string | undefined,
  tasks: readonly number[] | 'all',
): string {
  return stableHash(
    `${wsBaseUrl}|${serviceId ?? ''}|${tasks === 'all' ? 'all' : [...tasks].sort((a, b) => a - b).join(',')}`,
  );
}

/** The stored form of a position: streams by label (`extended`, `task 12`). */
export function storedPosition(
  scope: string,
  savedAtMs: number,
  streams: Iterable<[string, StreamRecord]>,
  neverConnected = false,
  unfinished?: StoredPosition['unfinished'],
  cooldown?: StoredCooldown,
): StoredPosition {
  const stored: Record<string, StreamPosition> = {};
  for (const [label, record] of streams) stored[label] = streamPosition(record);
  const position: StoredPosition = {
    format: positionFormat,
    version: positionVersion,
    scope,
    savedAt: new Date(savedAtMs).toISOString(),
    streams: stored,
  };
  if (neverConnected) position.neverConnected = true;
  if (unfinished !== undefined) position.unfinished = unfinished;
  if (cooldown !== undefined) position.cooldown = cooldown;
  return position;
}

function streamPosition(record: StreamRecord): StreamPosition {
  const position: StreamPosition = { from: new Date(record.fromMs).toISOString() };
  if (record.newestMs !== undefined) position.newest = new Date(record.newestMs).toISOString();
  const ids: number[] = [];
  const keys: string[] = [];
  for (const key of record.keys) {
    if (typeof key === 'number') ids.push(key);
    else keys.push(key);
  }
  if (ids.length > 0) position.ids = compressIds(ids);
  if (keys.length > 0) position.keys = keys;
  return position;
}

/** Sorted ids as single ids and [first, last] runs: consecutive record ids cost one entry. */
export function compressIds(ids: number[]): Array<number | [number, number]> {
  const sorted = [...ids].sort((a, b) => a - b);
  const out: Array<number | [number, number]> = [];
  let start = sorted[0] as number;
  let end = start;
  for (let index = 1; index <= sorted.length; index++) {
    const id = sorted[index];
    if (id !== undefined && (id === end + 1 || id === end)) {
      end = id;
      continue;
    }
    out.push(start === end ? start : [start, end]);
    if (id !== undefined) {
      start = id;
      end = id;
    }
  }
  return out;
}

/** The inverse of compressIds. */
export function expandIds(entries: ReadonlyArray<number | readonly [number, number]>): number[] {
  const ids: number[] = [];
  for (const entry of entries) {
    if (typeof entry === 'number') ids.push(entry);
    else for (let id = entry[0]; id <= entry[1]; id++) ids.push(id);
  }
  return ids;
}
