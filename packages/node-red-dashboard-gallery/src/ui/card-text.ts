import type { GalleryCard } from '../lib/gallery-card.js';
import type { Texts } from './texts.js';

/** The lines a card and its dialog show; names when known, ids otherwise. */
export function taskText(card: GalleryCard, t: Texts): string {
  return card.taskName ? `${card.taskName} (#${card.taskId})` : t('taskId', { id: card.taskId });
}

export function cameraText(card: GalleryCard, t: Texts): string | undefined {
  if (card.cameraName) return card.cameraName;
  return card.cameraId === undefined ? undefined : t('cameraId', { id: card.cameraId });
}

export function locationText(card: GalleryCard, t: Texts): string | undefined {
  if (card.locationName) return card.locationName;
  return card.locationId === undefined ? undefined : t('locationId', { id: card.locationId });
}

/** The highest confidence as a percentage; undefined for an event without detected objects. */
export function confidenceText(card: GalleryCard): string | undefined {
  return card.maxConfidence === undefined ? undefined : `${Math.round(card.maxConfidence * 100)}%`;
}

export function timeText(card: GalleryCard): string {
  return `${card.localTime} ${card.timezone}`;
}
