import type { GalleryCard } from '../lib/gallery-card.js';

/** The lines a card and its dialog show; names when known, ids otherwise. */
export function taskText(card: GalleryCard): string {
  return card.taskName ? `${card.taskName} (#${card.taskId})` : `task #${card.taskId}`;
}

export function cameraText(card: GalleryCard): string | undefined {
  if (card.cameraName) return card.cameraName;
  return card.cameraId === undefined ? undefined : `camera #${card.cameraId}`;
}

export function locationText(card: GalleryCard): string | undefined {
  if (card.locationName) return card.locationName;
  return card.locationId === undefined ? undefined : `location #${card.locationId}`;
}

export function confidenceText(card: GalleryCard): string {
  return `${Math.round(card.maxConfidence * 100)}%`;
}

export function timeText(card: GalleryCard): string {
  return `${card.localTime} ${card.timezone}`;
}
