import { ObservationError } from '../errors/observation-error.js';
import type { Clock, Logger, PositionStore, StoredCooldown, StoredPosition } from '../ports.js';
import type { StreamRecord } from './admission.js';
import { readPosition } from './position.js';
import type { UnfinishedEntry, UnfinishedRecord } from './unfinished-record.js';

/** What the store held when the subscription started, read once. */
export interface LoadedPosition {
  /** Per stream label, where it stood. */
  streams: Map<string, StreamRecord>;
  /** Every stream starts here (an earlier version's single cursor). */
  fallback: StreamRecord | undefined;
  /** The store held nothing: a first start, which begins live. */
  firstStart: boolean;
  /** What the earlier run left handed over and not acknowledged (`position.unfinished`). */
  unfinished: Map<string, UnfinishedEntry>;
  /** The `cooldown` option's state as stored (undefined: none, or it was unusable). */
  cooldown?: StoredCooldown;
}

export interface PositionSaverOptions {
  store: PositionStore;
  clock: Clock;
  logger: Pick<Logger, 'debug' | 'info' | 'warn'>;
  /** Under a steady stream, save at most this often (0: as soon as the last save is written). */
  saveMs: number;
  /**
   * What an empty store means: `live`, a first start; `look-back`, the host had saved a position
   * and lost it (`position.ifMissing`), so the start catches up from the look-back and says so.
   */
  ifMissing?: 'live' | 'look-back';
  /** The position as it stands now (the record's stored form included): called only when a save is due. */
  snapshot(): StoredPosition;
  /**
   * With `position.unfinished`: the record of what is handed over and not acknowledged. A save of
   * the streams tells it first that they cover what finished; a hand-over writes its stored form.
   */
  record?: Pick<UnfinishedRecord, 'streamsSaved' | 'stored'>;
  report(error: Error): void;
  signal: AbortSignal;
}

/**
 * The host's store, seen from the subscription: read once at the start, written as the position
 * moves. The position only flows one way, from the subscription's records into the store: the
 * subscription says it moved, and when a save is due the saver takes one snapshot and writes it.
 *
 * Timing bounds what a crash replays: a save is due at most `saveMs` after the position moved
 * (right away when the last one is older than that), and a save that returns a promise is awaited
 * before the next one starts, so saves never overtake each other. Problems with the store are
 * reported, never thrown: a host whose store is broken still gets its events.
 */
export class PositionSaver {
  private lastSaveMs = Number.NEGATIVE_INFINITY;
  private dirty = false;
  private timed = false;
  private writing: Promise<void> | undefined;
  private failed = false;
  /** The last position written: a save before a hand-over writes its streams again. */
  private last: StoredPosition | undefined;

  constructor(private readonly options: PositionSaverOptions) {}

  /** Reads the store, once, before any stream starts. */
  async load(scope: string): Promise<LoadedPosition> {
    const loaded: LoadedPosition = {
      streams: new Map(),
      fallback: undefined,
      firstStart: false,
      unfinished: new Map(),
    };
    let value: unknown;
    try {
      value = await this.options.store.load();
    } catch (error) {
      this.options.report(
        new ObservationError(
          'POSITION_RESET',
          `Reading the stored position failed, starting from the look-back instead: ${describe(error)}`,
          { cause: error },
        ),
      );
      return loaded;
    }
    const reading = readPosition(value, scope);
    switch (reading.kind) {
      case 'none':
        if (this.options.ifMissing === 'look-back') {
          // The host knows it saved one (a restart of a trigger that ran): starting live would
          // skip everything of the downtime, so the look-back is caught up (at least once).
          this.options.report(
            new ObservationError(
              'POSITION_RESET',
              'No stored position at this restart (the store lost the one saved before): starting from the look-back instead; events already handled in that time may come again',
            ),
          );
          break;
        }
        this.options.logger.debug('no stored position yet: a first start, live');
        loaded.firstStart = true;
        break;
      case 'restored':
        loaded.streams = reading.streams;
        loaded.unfinished = reading.unfinished;
        if (reading.cooldown) loaded.cooldown = reading.cooldown;
        if (reading.cooldownProblem !== undefined)
          this.options.report(
            new ObservationError(
              'POSITION_RESET',
              `The stored cooldown is corrupt (${reading.cooldownProblem}): the cooldown starts afresh; the rest of the position is used`,
            ),
          );
        break;
      case 'foreign':
        // The service, credential or tasks changed: what was stored is of another subscription,
        // and replaying the look-back would flood the host with what it never asked for. Info, not
        // a warning: the user changed the settings and this is what a new subscription does
        // (Node-RED shows warnings in the flow's debug sidebar, where a settings change must not
        // look like a fault).
        this.options.logger.info(
          'the stored position belongs to another service or task selection (the settings changed): starting live, as a new subscription does',
          {},
        );
        loaded.firstStart = true;
        break;
      case 'never-connected':
        // A wrong token or path, since fixed: the refused start had no events to catch up on
        // (it never connected), and a new subscription starts live. Catching up from when it
        // began would replay everything of the hours it spent refused. Info, as above.
        this.options.logger.info(
          'the stored position was saved by a start the service refused before it ever connected (a wrong credential or address): starting live, as a new subscription does',
          {},
        );
        loaded.firstStart = true;
        break;
      case 'legacy':
        loaded.fallback = reading.stream;
        this.options.report(new ObservationError('POSITION_MIGRATED', `Position: ${reading.problem}`));
        break;
      case 'unusable':
        this.options.report(
          new ObservationError(
            'POSITION_RESET',
            `Position not used: ${reading.problem}. Starting from the look-back instead`,
          ),
        );
        break;
    }
    return loaded;
  }

  /** The position moved past acknowledged events: save it once a save is due. */
  moved(): void {
    this.dirty = true;
    if (this.writing || this.timed) return;
    const wait = this.lastSaveMs + this.options.saveMs - this.options.clock.now();
    if (wait <= 0) {
      this.save();
      return;
    }
    this.timed = true;
    this.options.clock.sleep(wait, this.options.signal).then(
      () => {
        this.timed = false;
        if (this.dirty && !this.writing) this.save();
      },
      () => {
        this.timed = false;
      },
    );
  }

  /**
   * The last save, when the subscription closes (the signal has aborted by then): after the save
   * being written, if any; resolves once it is written (or failed, which is reported).
   */
  async flush(): Promise<void> {
    await this.writing;
    if (this.dirty) this.save();
    await this.writing;
  }

  /**
   * A unit is about to be handed over (`position.unfinished`): the record is written at once, with
   * the streams as last saved (building them again for every hand-over would cost each event its
   * whole position; a position older by up to `saveMs` repeats, never loses). A host that persists
   * its store only at its own moments (n8n, when a trigger emits) then holds the record before its
   * work on the unit begins. Behind a save still being written (a store that writes asynchronously),
   * the record goes with the next save.
   */
  handOver(): void {
    const { last } = this;
    if (this.writing || last === undefined) {
      this.dirty = true;
      if (!this.writing) this.save();
      return;
    }
    const position: StoredPosition = {
      ...last,
      savedAt: new Date(this.options.clock.now()).toISOString(),
    };
    const unfinished = this.options.record?.stored();
    if (unfinished === undefined) delete position.unfinished;
    else position.unfinished = unfinished;
    this.write(position);
  }

  private save(): void {
    this.dirty = false;
    this.lastSaveMs = this.options.clock.now();
    this.options.record?.streamsSaved();
    const position = this.options.snapshot();
    this.last = position;
    this.write(position);
  }

  private write(position: StoredPosition): void {
    let result: void | Promise<void>;
    try {
      result = this.options.store.save(position);
    } catch (error) {
      this.saveFailed(error);
      return;
    }
    if (!result || typeof result.then !== 'function') return;
    const writing: Promise<void> = result.then(
      () => this.written(writing),
      (error: unknown) => {
        this.saveFailed(error);
        this.written(writing);
      },
    );
    this.writing = writing;
  }

  /** A save finished: what moved while it was written is saved next, on the usual schedule. */
  private written(writing: Promise<void>): void {
    if (this.writing !== writing) return;
    this.writing = undefined;
    if (this.dirty && !this.options.signal.aborted) this.moved();
  }

  private saveFailed(error: unknown): void {
    // Once: a store that fails keeps failing, and every event would repeat the report.
    if (this.failed) return;
    this.failed = true;
    this.options.report(
      new ObservationError(
        'POSITION_SAVE_FAILED',
        `Saving the position failed; events keep flowing, but a restart may repeat or (past the look-back) miss some: ${describe(error)}`,
        { cause: error },
      ),
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
