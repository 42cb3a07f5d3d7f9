import { describe, expect, it } from 'vitest';
import { positionScope } from './realtime/position.js';
import { stableHash } from './stable-hash.js';

describe('stableHash', () => {
  it('gives the values stored positions and n8n execution keys were written with', () => {
    // Pinned: changing the function would make every saved position look foreign.
    expect(stableHash('ws://127.0.0.1:1/apiserver|svc|1,2,3')).toBe('60c4931121f2f3fd');
    expect(stableHash('')).toBe('811c9dc501000193');
    expect(positionScope('ws://127.0.0.1:1/apiserver', 'svc', [3, 1, 2])).toBe('60c4931121f2f3fd');
  });
});
