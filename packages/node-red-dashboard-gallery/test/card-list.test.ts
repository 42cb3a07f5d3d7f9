import { describe, expect, it } from 'vitest';
import type { GalleryCard } from '../src/lib/gallery-card.js';
import { CardBuffer, mergeCards } from '../src/ui/card-list.js';
import { confidenceText } from '../src/ui/card-text.js';

function card(id: string, second: number): GalleryCard {
  return {
    id,
    eventName: 'e',
    taskId: 1,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
    localTime: '',
    timezone: 'UTC',
    maxConfidence: 0,
    hasWarning: false,
    objectNames: [],
  };
}

describe("the widget's card list", () => {
  it('merges newest first, each id once, at most max', () => {
    const merged = mergeCards([card('a', 1), card('b', 3)], [card('c', 2), card('b', 3), card('d', 4)], 3);
    expect(merged.map((kept) => kept.id)).toEqual(['d', 'b', 'c']);
  });

  it('hands a burst over once per frame, and bounds what waits while no frame comes', () => {
    const frames: Array<() => void> = [];
    const flushed: GalleryCard[][] = [];
    // The frame scheduler is a parameter: here the test plays the browser's requestAnimationFrame.
    const buffer = new CardBuffer(
      () => 5,
      (cards) => flushed.push(cards),
      (callback) => frames.push(callback),
    );
    for (let index = 0; index < 100; index++) buffer.push(card(`c${index}`, index));
    expect(frames).toHaveLength(1);
    expect(buffer.waiting).toBeLessThanOrEqual(10);
    frames.shift()?.();
    expect(flushed).toHaveLength(1);
    expect(mergeCards([], flushed[0] ?? [], 5).map((kept) => kept.id)).toEqual([
      'c99',
      'c98',
      'c97',
      'c96',
      'c95',
    ]);
    expect(buffer.waiting).toBe(0);
    buffer.push(card('next', 200));
    expect(frames).toHaveLength(1);
  });
});

describe("a card's confidence", () => {
  it('is the highest confidence in percent, and nothing (not "0%") for an event without objects', () => {
    const { maxConfidence: _none, ...withoutObjects } = card('a', 1);
    expect(confidenceText({ ...card('b', 2), maxConfidence: 0.874 })).toBe('87%');
    expect(confidenceText(withoutObjects)).toBeUndefined();
  });
});
