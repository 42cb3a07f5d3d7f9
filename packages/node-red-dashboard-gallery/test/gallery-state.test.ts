import { describe, expect, it } from 'vitest';
import type { GalleryCard } from '../src/lib/gallery-card.js';
import { GalleryState } from '../src/lib/gallery-state.js';

function card(id: string, second: number): GalleryCard {
  return {
    id,
    eventName: 'person_in_zone',
    taskId: 1,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
    localTime: '',
    timezone: 'UTC',
    maxConfidence: 0.5,
    hasWarning: false,
    objectNames: [],
  };
}

const image = (bytes: number) => ({ data: Buffer.alloc(bytes), contentType: 'image/png' });

describe('GalleryState: the newest cards and their images, bounded', () => {
  it('keeps the newest N cards by event time, newest first, and forgets the media of dropped ones', () => {
    const state = new GalleryState(3, 1_000_000);
    for (const [id, second] of [
      ['a', 1],
      ['b', 5],
      ['c', 3],
      ['d', 4],
    ] as const) {
      state.add(card(id, second), { source: { taskId: 1 }, image: image(10) });
    }
    expect(state.cards.map((kept) => kept.id)).toEqual(['b', 'd', 'c']);
    expect(state.entry('a')).toBeUndefined();
    expect(state.entries).toBe(3);
    expect(state.imageBytes).toBe(30);
  });

  it('refuses a card older than every kept card of a full gallery', () => {
    const state = new GalleryState(2, 1_000_000);
    state.add(card('new', 10), { source: { taskId: 1 } });
    state.add(card('newer', 11), { source: { taskId: 1 } });
    expect(state.add(card('old', 2), { source: { taskId: 1 }, image: image(5) })).toBe(false);
    expect(state.entry('old')).toBeUndefined();
    expect(state.imageBytes).toBe(0);
  });

  it('lets the oldest images go past the byte cap, keeping their cards', () => {
    const state = new GalleryState(10, 250);
    for (let index = 0; index < 5; index++) {
      state.add(card(`c${index}`, index), { source: { taskId: 1 }, image: image(100) });
    }
    expect(state.imageBytes).toBeLessThanOrEqual(250);
    expect(state.cards).toHaveLength(5);
    expect(state.entry('c4')?.image).toBeDefined();
    expect(state.entry('c3')?.image).toBeDefined();
    expect(state.entry('c0')?.image).toBeUndefined();
  });

  it('does not keep an image larger than the whole cap', () => {
    const state = new GalleryState(10, 50);
    state.add(card('big', 1), { source: { taskId: 1 }, image: image(51) });
    expect(state.entry('big')?.image).toBeUndefined();
    expect(state.imageBytes).toBe(0);
  });

  it('stays at N cards and under the cap through a burst of a thousand events', () => {
    const state = new GalleryState(24, 2_000);
    for (let index = 0; index < 1_000; index++) {
      state.add(card(`e${index}`, index % 60), { source: { taskId: 1 }, image: image(100) });
    }
    expect(state.cards).toHaveLength(24);
    expect(state.entries).toBe(24);
    expect(state.imageBytes).toBeLessThanOrEqual(2_000);
  });

  it('counts thumbnails in the same cap; a dropped card takes its thumbnail with it', () => {
    const state = new GalleryState(2, 300);
    state.add(card('a', 1), { source: { taskId: 1 }, image: image(100) });
    state.storeImage('a', image(20), 'thumb');
    expect(state.imageBytes).toBe(120);
    state.add(card('b', 2), { source: { taskId: 1 }, image: image(100) });
    state.storeImage('b', image(20), 'thumb');
    // Past the cap: the oldest full image goes first, its thumbnail stays.
    state.storeImage('b', image(200), 'image');
    expect(state.imageBytes).toBeLessThanOrEqual(300);
    expect(state.entry('a')?.image).toBeUndefined();
    expect(state.entry('a')?.thumb).toBeDefined();
    state.add(card('c', 3), { source: { taskId: 1 } });
    expect(state.entry('a')).toBeUndefined();
    expect(state.imageBytes).toBe(220);
  });
});
