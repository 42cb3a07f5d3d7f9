import {
  type EventFilter,
  type PositionStore,
  parseIdList,
  type SubscribeOptions,
  ValidationError,
} from '@observation-service/core';
import { sharedAnnotator } from './annotator.js';
import { type AckConfig, type AckSettings, ackPolicy } from './events-ack.js';
import type { TaskSelection } from './server-node.js';

/** Settings of an `observation events` node as the editor saves them. */
export interface EventsConfig extends AckConfig {
  server?: string;
  /** `all` tasks, tasks `pick`ed from the dropdown, or typed `ids`. */
  taskMode?: 'all' | 'pick' | 'ids';
  tasks?: Array<string | number>;
  taskIds?: string;
  eventNames?: string;
  minConfidence?: string | number;
  objectNames?: string;
  warningsOnly?: boolean;
  attachSnapshot?: boolean;
  /** Attach the snapshot with every detected object's box and label drawn on it (`msg.annotated`). */
  attachAnnotated?: boolean;
  /** Catch-up window after a redeploy or restart, in minutes; 0 turns catching up off. */
  lookBackMinutes?: string | number;
  /** Seconds an event may be published after it happened and still be caught up exactly once. */
  allowedLateness?: string | number;
  /** Seconds a fresh event's snapshot may take to appear before the event goes out without it. */
  mediaWait?: string | number;
  /** At most one event per key every this many minutes (core's `cooldown`); 0 or missing: off. */
  cooldownMinutes?: string | number;
  /** The cooldown's key: `camera` (default), `task` or `object` (kind). */
  cooldownPer?: string;
  /** A second output for the events core gave up on (the editor sets `outputs` to 2). */
  givenUpOutput?: boolean;
}

const DEFAULT_LOOK_BACK_MINUTES = 60;
const DEFAULT_LATENESS_SECONDS = 120;
const DEFAULT_MEDIA_WAIT_SECONDS = 10;
/** A day: core's own bound on the cooldown. */
const MAX_COOLDOWN_MINUTES = 1440;
const COOLDOWN_KEYS = ['camera', 'task', 'object'] as const;

/** Task selection from the editor fields; core's validator names the field and value on bad input. */
export function taskSelection(config: EventsConfig): TaskSelection {
  switch (config.taskMode ?? 'all') {
    case 'pick':
      return parseIdList((config.tasks ?? []).join(','), 'tasks');
    case 'ids':
      return parseIdList(config.taskIds ?? '', 'taskIds');
    default:
      return 'all';
  }
}

/**
 * Core's subscribe options from the editor fields. Core decides when to save the position (where
 * to resume, what was already sent); the node keeps it durably, on a default install too. A
 * look-back of 0 minutes means every start is live. The editor keeps the numbers within their
 * ranges; a flow edited by hand gets core's error (naming the option) for a bad value.
 */
export function subscribeOptions(
  config: EventsConfig,
  filter: EventFilter,
  position: PositionStore,
  ack?: AckSettings,
): SubscribeOptions {
  const minutes = lookBackMinutes(config);
  const options: SubscribeOptions = {
    allowedLatenessMs: seconds(config.allowedLateness, 'allowedLateness', DEFAULT_LATENESS_SECONDS, 3600),
    filter,
  };
  // Events out in the flow and not finished, at most, and what a failed or late one becomes;
  // "when sent" hands over synchronously (nothing to wait for).
  if (ack?.mode === 'done') {
    options.maxInFlight = ack.maxInFlight;
    options.ack = ackPolicy(ack);
  }
  // Decided in core (on the events' own time, kept in the stored position): the node only shows
  // what passed (`msg.cooldown`) and counts what was held back.
  const cooldown = cooldownOption(config);
  if (cooldown) options.cooldown = cooldown;
  if (config.attachSnapshot || config.attachAnnotated) {
    options.media = {
      snapshot: Boolean(config.attachSnapshot),
      annotated: Boolean(config.attachAnnotated),
      waitMs: seconds(config.mediaWait, 'mediaWait', DEFAULT_MEDIA_WAIT_SECONDS, 600),
      annotate: sharedAnnotator(),
    };
  }
  if (minutes > 0) {
    options.position = position;
    options.lookBackMs = minutes * 60_000;
    options.maxLookBackMs = minutes * 60_000;
  }
  return options;
}

/** Core's `cooldown` from the Cooldown fields; undefined when off (0 minutes, or flows saved before it). */
export function cooldownOption(config: EventsConfig): SubscribeOptions['cooldown'] {
  const value = config.cooldownMinutes;
  if (value === undefined || value === '' || Number(value) === 0) return undefined;
  const minutes = Number(value);
  if (!Number.isSafeInteger(minutes) || minutes < 0 || minutes > MAX_COOLDOWN_MINUTES) {
    throw new ValidationError(
      'cooldownMinutes',
      JSON.stringify(value),
      `a whole number of minutes from 0 to ${MAX_COOLDOWN_MINUTES} (0: off)`,
    );
  }
  const per = config.cooldownPer ?? 'camera';
  if (!(COOLDOWN_KEYS as readonly string[]).includes(per)) {
    throw new ValidationError(
      'cooldownPer',
      JSON.stringify(per),
      '"camera", "task" or "object" (one alert per camera, per task or per object kind)',
    );
  }
  return { ms: minutes * 60_000, per: per as (typeof COOLDOWN_KEYS)[number] };
}

function lookBackMinutes(config: EventsConfig): number {
  const value = config.lookBackMinutes;
  if (value === undefined || value === '') return DEFAULT_LOOK_BACK_MINUTES;
  const minutes = Number(value);
  if (!Number.isFinite(minutes) || minutes < 0) {
    throw new ValidationError(
      'lookBackMinutes',
      JSON.stringify(value),
      'a number of minutes, 0 or more (0: off)',
    );
  }
  return minutes;
}

/**
 * A field in seconds, in milliseconds (the default when left empty). The editor keeps it within
 * its range; a flow edited by hand gets the field's name (by its config property, which the node
 * turns into the editor's label) and the range, not core's option name in milliseconds.
 */
function seconds(value: string | number | undefined, field: string, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback * 1000;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > max) {
    throw new ValidationError(field, JSON.stringify(value), `a whole number of seconds from 0 to ${max}`);
  }
  return number * 1000;
}
