import { describe, expect, it } from 'vitest';
import { TieOrder } from './tie-order.js';

describe('TieOrder', () => {
  it('is a permutation of 0 … n-1 for every n, whatever the salt and second', () => {
    for (const n of [1, 2, 3, 4, 5, 7, 16, 17, 60, 255, 256, 257, 1000, 4097]) {
      for (const salt of [0, 1, 0xdeadbeef]) {
        const order = new TieOrder(salt);
        const seen = Array.from({ length: n }, (_, rank) => order.at(1_717_243_195, rank, n));
        expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
      }
    }
  });

  it('differs between salts and between seconds, and is not the identity', () => {
    const ranks = (order: TieOrder, second: number) =>
      Array.from({ length: 50 }, (_, rank) => order.at(second, rank, 50));
    const a = new TieOrder(1);
    const b = new TieOrder(2);
    const identity = Array.from({ length: 50 }, (_, i) => i);
    expect(ranks(a, 100)).not.toEqual(identity);
    expect(ranks(a, 100)).not.toEqual(ranks(b, 100));
    expect(ranks(a, 100)).not.toEqual(ranks(a, 101));
    expect(ranks(a, 100)).toEqual(ranks(new TieOrder(1), 100));
  });
});
