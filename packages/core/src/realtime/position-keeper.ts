import { ObservationError } from '../errors/observation-error.js';
import { stableHash } from '../stable-hash.js';
import { compressIds } from './admission.js';
import type { RealtimeContext } from './context.js';
import {
  type PositionStore,
  positionFormat,
  positionVersion,
  type RestoredStream,
  readPosition,
  type StoredPosition,
  type StreamPosition,
} from './position.js';

/** What the keeper needs from the subscription's streams. */
export interface PositionSource {
  /** The current streams' positions by label. */
  streamPositions(): Map<string, StreamPosition>;
}

/**
 * Loads a subscription's position from the host's store once, hands each stream its part, and
 * saves the position as events are handled: right away when the last save is `saveMs` old,
 * otherwise once at the end of that interval, and a last time on close. Problems with the store
 * are reported, never thrown: a host whose store is broken still gets its events.
 */
export class PositionKeeper {
  private restored = new Map<string, RestoredStream>();
  private fallback: RestoredStream | undefined;
  private lastSaveMs = Number.NEGATIVE_INFINITY;
  private trailing = false;
  private dirty = false;
  private saveFailed = false;
  /** The store held nothing: a first start, which begins live (there is nothing to catch up on). */
  firstStart = false;

  constructor(
    private readonly store: PositionStore | undefined,
    readonly scope: string,
    private readonly context: RealtimeContext,
    private readonly saveMs: number,
    private readonly source: PositionSource,
    private readonly report: (error: Error) => void,
    private readonly signal: AbortSignal,
  ) {}

  /** Reads the store (once, before any stream starts). */
  async load(): Promise<void> {
    if (!this.store) return;
    let value: unknown;
    try {
      value = await this.store.load();
    } catch (error) {
      this.report(
        new ObservationError(
          'POSITION_RESET',
          `Reading the stored position failed, starting from the look-back instead: ${describe(error)}`,
          {
            cause: error,
          },
        ),
      );
      return;
    }
    const reading = readPosition(value, this.scope);
    switch (reading.kind) {
      case 'none':
        this.firstStart = true;
        this.context.logger.debug('no stored position yet: a first start, live');
        return;
      case 'restored':
        this.restored = reading.streams;
        return;
      case 'legacy':
        this.fallback = reading.stream;
        this.report(new ObservationError('POSITION_MIGRATED', `Position: ${reading.problem}`));
        return;
      case 'unusable':
        this.report(
          new ObservationError(
            'POSITION_RESET',
            `Position not used: ${reading.problem}. Starting from the look-back instead`,
          ),
        );
        return;
    }
  }

  /** The stored part of the stream `label`, if any (taken once: a restarted stream starts fresh). */
  take(label: string): RestoredStream | undefined {
    const stream = this.restored.get(label) ?? this.fallback;
    this.restored.delete(label);
    return stream;
  }

  /** A stream went away for good (its task is gone): its stored part goes too. */
  forget(label: string): void {
    this.restored.delete(label);
  }

  /** An event was handled: the position moved. */
  moved(): void {
    if (!this.store) return;
    this.dirty = true;
    const wait = this.lastSaveMs + this.saveMs - this.context.clock.now();
    if (wait <= 0) {
      this.save();
      return;
    }
    if (this.trailing) return;
    this.trailing = true;
    this.context.clock.sleep(wait, this.signal).then(
      () => {
        this.trailing = false;
        if (this.dirty) this.save();
      },
      () => {
        this.trailing = false;
      },
    );
  }

  /** The last save, when the subscription closes. */
  flush(): void {
    if (this.store && this.dirty) this.save();
  }

  /** The position as it stands now. */
  current(): StoredPosition {
    const streams: Record<string, StreamPosition> = {};
    // Streams not running (yet) keep what was stored for them.
    for (const [label, stream] of this.restored) streams[label] = storedForm(stream);
    for (const [label, position] of this.source.streamPositions()) streams[label] = position;
    return {
      format: positionFormat,
      version: positionVersion,
      scope: this.scope,
      savedAt: new Date(this.context.clock.now()).toISOString(),
      streams,
    };
  }

  private save(): void {
    this.dirty = false;
    this.lastSaveMs = this.context.clock.now();
    const store = this.store as PositionStore;
    const failed = (error: unknown) => {
      // Once: a store that fails keeps failing, and every event would repeat the report.
      if (this.saveFailed) return;
      this.saveFailed = true;
      this.report(
        new ObservationError(
          'POSITION_SAVE_FAILED',
          `Saving the position failed; events keep flowing, but a restart may repeat or (past the look-back) miss some: ${describe(error)}`,
          { cause: error },
        ),
      );
    };
    try {
      const result = store.save(this.current());
      if (result && typeof (result as Promise<void>).then === 'function')
        (result as Promise<void>).catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}

function storedForm(stream: RestoredStream): StreamPosition {
  const position: StreamPosition = { from: new Date(stream.fromMs).toISOString() };
  if (stream.newestMs !== undefined) position.newest = new Date(stream.newestMs).toISOString();
  const ids = stream.keys.filter((key): key is number => typeof key === 'number');
  const keys = stream.keys.filter((key): key is string => typeof key === 'string');
  if (ids.length > 0) position.ids = compressIds(ids);
  if (keys.length > 0) position.keys = keys;
  return position;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A short, stable name for "this service, these tasks": a stored position from another service
 * or selection must not be applied. Not a secret and not an address.
 */
export function positionScope(
  wsBaseUrl: string,
  serviceId: string | undefined,
  tasks: number[] | 'all',
): string {
  return stableHash(
    `${wsBaseUrl}|${serviceId ?? ''}|${tasks === 'all' ? 'all' : [...tasks].sort((a, b) => a - b).join(',')}`,
  );
}
