import { describe, expect, it } from 'vitest';
import { DedupeWindow } from './dedupe-window.js';

describe('DedupeWindow', () => {
  it('accepts a key once', () => {
    const window = new DedupeWindow(3_000, 100);
    expect(window.add('a', 1_000)).toBe(true);
    expect(window.add('a', 1_000)).toBe(false);
    expect(window.add('b', 1_000)).toBe(true);
    expect(window.newest).toBe(1_000);
  });

  it('forgets keys older than the retention before the newest event', () => {
    const window = new DedupeWindow(3_000, 100);
    window.add('old', 1_000);
    window.add('mid', 3_000);
    window.add('new', 5_000);
    expect(window.has('old')).toBe(false);
    expect(window.has('mid')).toBe(true);
    expect(window.size).toBe(2);
  });

  it('never holds more than its capacity, whatever the times', () => {
    const window = new DedupeWindow(Number.MAX_SAFE_INTEGER, 50);
    for (let i = 0; i < 10_000; i++) window.add(`k${i}`, 1_000);
    expect(window.size).toBe(50);
    expect(window.has('k9999')).toBe(true);
    expect(window.has('k0')).toBe(false);
  });

  it('is empty-handed before the first event', () => {
    expect(new DedupeWindow(1, 1).newest).toBeUndefined();
  });
});
