import type { DetectedObject, ObservationEvent } from '../model/observation-event.js';
import type { StoredCooldown } from '../ports.js';
import { eventIdentity } from './event-key.js';

export interface CooldownOptions {
  ms: number;
  per: 'camera' | 'task' | 'object';
}

/** An event that passed: it holds its key's slot around its time. */
interface Pass {
  atMs: number;
  /** `eventIdentity`: the same event handed over again is not held by its own slot. */
  id: string;
  /** The held count its passing reset (its `meta.cooldown.heldBack`): given back if it is given up. */
  heldBack: number;
}

interface KeyState {
  /** Oldest first; the newest `maxPassesPerKey`. */
  passes: Pass[];
  /** Events held since the newest pass. */
  held: number;
}

export type CooldownVerdict = { held: true } | { held: false; cooldown: { key: string; heldBack: number } };

/**
 * Passes kept per key. Earlier ones matter only to an event that comes out of order by more than
 * this many `ms`, and to giving a slot back when an alert is given up; four covers both in practice.
 */
const maxPassesPerKey = 4;
/** Keys kept at most: the state goes into every stored position. */
export const maxCooldownKeys = 10_000;

/**
 * At most one event per key every `ms`, judged on the events' own time so a catch-up after a
 * restart judges them as they happened (not all at once, as their arrival would). An event is
 * held when a pass of its key lies within `ms` of it, either side; otherwise it passes and
 * holds the slot. A pass that is given up (the alert failed) is taken back: the key's slot returns
 * to its previous pass and the held count it reset is added back, so the next event can alert.
 * The state is plain data for the stored position: kept across restarts.
 */
export class Cooldown {
  private keys = new Map<string, KeyState>();
  /** Newest event time judged: what decides that a key's slot is old enough to forget. */
  private newestMs = Number.NEGATIVE_INFINITY;

  /**
   * @param keepMs how far before the newest event an event may still come (the allowed lateness
   *   and catch-up overlap): a slot is forgotten only once no such event can fall within it.
   */
  constructor(
    private readonly options: CooldownOptions,
    private readonly keepMs: number,
  ) {}

  /** Judges an event that passed the filter (`matched`: the filter's matched objects). */
  judge(event: ObservationEvent, matched: DetectedObject[] | undefined): CooldownVerdict {
    const key = cooldownKey(event, this.options.per, matched);
    const atMs = event.occurredAt.getTime();
    const id = eventIdentity(event);
    if (atMs > this.newestMs) this.newestMs = atMs;
    let state = this.keys.get(key);
    const own = state?.passes.find((pass) => pass.id === id);
    // Handed over again (a rerun after a restart): it still holds its slot, as it did.
    if (own) return { held: false, cooldown: { key, heldBack: own.heldBack } };
    if (state?.passes.some((pass) => Math.abs(pass.atMs - atMs) < this.options.ms)) {
      state.held++;
      return { held: true };
    }
    if (state === undefined) state = { passes: [], held: 0 };
    const heldBack = state.held;
    state.held = 0;
    state.passes.push({ atMs, id, heldBack });
    state.passes.sort((a, b) => a.atMs - b.atMs);
    if (state.passes.length > maxPassesPerKey) state.passes.shift();
    // Most recently passed last: the cap drops the keys idle longest.
    this.keys.delete(key);
    this.keys.set(key, state);
    if (this.keys.size > maxCooldownKeys) this.keys.delete(this.keys.keys().next().value as string);
    return { held: false, cooldown: { key, heldBack } };
  }

  /**
   * An event that passed was given up: it frees its slot. True when the state changed. Events held
   * while it was being tried stay held (they were acknowledged already).
   */
  giveBack(event: ObservationEvent, key: string): boolean {
    const state = this.keys.get(key);
    if (state === undefined) return false;
    const id = eventIdentity(event);
    const index = state.passes.findIndex((pass) => pass.id === id);
    if (index < 0) return false;
    const [pass] = state.passes.splice(index, 1);
    state.held += (pass as Pass).heldBack;
    return true;
  }

  /** The state as stored in the position; keys whose slots can no longer matter are let go first. */
  stored(): StoredCooldown {
    this.forget();
    const stored: StoredCooldown = {};
    for (const [key, state] of this.keys) {
      stored[key] = {
        passes: state.passes.map(({ atMs, id, heldBack }) => ({
          at: new Date(atMs).toISOString(),
          id,
          heldBack,
        })),
        held: state.held,
      };
    }
    return stored;
  }

  /** Takes over what a stored position held (read by `readCooldown`). */
  restore(stored: StoredCooldown): void {
    this.keys = new Map();
    for (const [key, { passes, held }] of Object.entries(stored)) {
      const restored = passes.map(({ at, id, heldBack }) => ({ atMs: Date.parse(at), id, heldBack }));
      for (const pass of restored) if (pass.atMs > this.newestMs) this.newestMs = pass.atMs;
      this.keys.set(key, { passes: restored, held });
    }
  }

  /**
   * A key whose newest pass is older than `ms` plus `keepMs` before the newest event can hold no
   * event that may still come; it is forgotten unless it still counts held events (the next event
   * of its key reports them).
   */
  private forget(): void {
    const before = this.newestMs - this.options.ms - this.keepMs;
    for (const [key, state] of this.keys) {
      const newest = state.passes.at(-1);
      if (state.held === 0 && (newest === undefined || newest.atMs < before)) this.keys.delete(key);
    }
  }
}

/**
 * The key of an event, prefixed by what it is so keys of different kinds never collide: `camera:12`
 * (or `task:3` for an event without a camera id, the basic form), `task:3`, `object:person` (or
 * `event:Intrusion` for an event without objects).
 */
export function cooldownKey(
  event: ObservationEvent,
  per: CooldownOptions['per'],
  matched: DetectedObject[] | undefined,
): string {
  if (per === 'camera')
    return event.cameraId === undefined ? `task:${event.taskId}` : `camera:${event.cameraId}`;
  if (per === 'task') return `task:${event.taskId}`;
  const object = matched?.[0] ?? event.objects[0];
  return object === undefined ? `event:${event.eventName}` : `object:${object.name}`;
}

/** Most characters of a stored key or id: a stored position is never an unbounded allocation. */
const maxStoredText = 1_000;

/** Reads a stored cooldown state, or says what is wrong with it. */
export function readCooldown(value: unknown): StoredCooldown | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const entries = Object.entries(value);
  if (entries.length > maxCooldownKeys) return `more than ${maxCooldownKeys} keys`;
  const read: StoredCooldown = {};
  for (const [key, state] of entries) {
    const { passes, held } = (state ?? {}) as Record<string, unknown>;
    const valid =
      key.length <= maxStoredText &&
      Number.isSafeInteger(held) &&
      (held as number) >= 0 &&
      Array.isArray(passes) &&
      passes.length <= maxPassesPerKey &&
      passes.every(isStoredPass);
    if (!valid) return `${key.slice(0, 60)} holds ${JSON.stringify(state)?.slice(0, 200)}`;
    read[key] = {
      passes: (passes as StoredCooldown[string]['passes']).map(({ at, id, heldBack }) => ({
        at,
        id,
        heldBack,
      })),
      held: held as number,
    };
  }
  return read;
}

function isStoredPass(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { at, id, heldBack } = value as Record<string, unknown>;
  return (
    typeof at === 'string' &&
    Number.isFinite(Date.parse(at)) &&
    typeof id === 'string' &&
    id.length <= maxStoredText &&
    Number.isSafeInteger(heldBack) &&
    (heldBack as number) >= 0
  );
}
