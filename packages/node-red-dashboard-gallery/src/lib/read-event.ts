import { describeValue, type ObservationEvent } from '@observation-service/core';

/** The parts of an `observation events` message the gallery uses. */
export interface GalleryInput {
  event: ObservationEvent;
  occurredAt: Date;
  /** `msg.annotated`: the snapshot with boxes drawn, when the events node attached it. */
  annotated?: { data: Buffer; contentType: string };
  /**
   * The events node waited for the event's snapshot and it did not come (`msg.missingImages`
   * names the snapshot or the annotated one, and none is attached): the card says so, and the
   * gallery does not fetch it again.
   */
  snapshotMissing: boolean;
  /** Names a flow may set (e.g. with a change node) where the service has none, like cameras. */
  names: { taskName?: string; cameraName?: string; locationName?: string };
}

/** Thrown for a message the gallery cannot show; the text names the property, the value and what fits. */
export class GalleryInputError extends Error {
  override name = 'GalleryInputError';
}

function optionalName(msg: Record<string, unknown>, key: string): string | undefined {
  const value = msg[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new GalleryInputError(`msg.${key} must be a string; got ${describeValue(value)}`);
  }
  return value.slice(0, 200);
}

/**
 * Reads a message of the `observation events` node (msg.payload is core's ObservationEvent).
 * The time is taken from `occurredAt` (a Date, or its ISO text after a JSON round trip) or the
 * raw `timestamp`.
 */
export function readEvent(msg: Record<string, unknown>): GalleryInput {
  const payload = msg.payload as Partial<ObservationEvent> | undefined;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new GalleryInputError(
      `msg.payload must be an event of the observation events node; got ${describeValue(payload)}`,
    );
  }
  if (typeof payload.eventName !== 'string') {
    throw new GalleryInputError(
      `msg.payload.eventName must be a string; got ${describeValue(payload.eventName)}`,
    );
  }
  if (typeof payload.taskId !== 'number' || !Number.isFinite(payload.taskId)) {
    throw new GalleryInputError(`msg.payload.taskId must be a number; got ${describeValue(payload.taskId)}`);
  }
  const rawTime: unknown = payload.occurredAt ?? payload.timestamp;
  const occurredAt = rawTime instanceof Date ? rawTime : new Date(String(rawTime));
  if (Number.isNaN(occurredAt.getTime())) {
    throw new GalleryInputError(
      `msg.payload.occurredAt must be a date or ISO 8601 text; got ${describeValue(rawTime)}`,
    );
  }
  let annotated: GalleryInput['annotated'];
  if (msg.annotated !== undefined) {
    if (!Buffer.isBuffer(msg.annotated)) {
      throw new GalleryInputError(
        `msg.annotated must be the image Buffer the events node attaches; got ${describeValue(msg.annotated)}`,
      );
    }
    const type = typeof msg.annotatedContentType === 'string' ? msg.annotatedContentType : 'image/png';
    annotated = { data: msg.annotated, contentType: type.startsWith('image/') ? type : 'image/png' };
  }
  const missingImages: unknown = msg.missingImages;
  if (
    missingImages !== undefined &&
    (!Array.isArray(missingImages) || !missingImages.every((name) => typeof name === 'string'))
  ) {
    throw new GalleryInputError(
      `msg.missingImages must be the list of image names the events node sets; got ${describeValue(missingImages)}`,
    );
  }
  // An event without a snapshot URL has none to miss: it shows as one without a snapshot.
  const snapshotMissing =
    annotated === undefined &&
    typeof payload.imageUrl === 'string' &&
    payload.imageUrl !== '' &&
    (missingImages ?? []).some((name: string) => name === 'snapshot' || name === 'annotated');
  const names: GalleryInput['names'] = {};
  for (const key of ['taskName', 'cameraName', 'locationName'] as const) {
    const name = optionalName(msg, key);
    if (name !== undefined) names[key] = name;
  }
  return {
    event: payload as ObservationEvent,
    occurredAt,
    ...(annotated ? { annotated } : {}),
    snapshotMissing,
    names,
  };
}
