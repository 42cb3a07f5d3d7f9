/**
 * The order of one second's history rows under `historyTies: 'per-request'`: a pseudo-random
 * permutation of the second's n rows, drawn per request (and direction, and second), that gives
 * the row at any rank in O(1) without ordering the others.
 *
 * Why not a sort on a random key: a busy second holds tens of thousands of rows (a storm emits
 * 50,000 events a second), and every page that touches it would sort all of them, some hundred
 * milliseconds a page. A permutation evaluated rank by rank keeps a page O(page).
 *
 * How: a four-round Feistel network over the smallest even-bit domain holding n (at most 4n
 * values), walking cycles until the value falls below n: a bijection on [0, n) whatever n.
 */
import { hash2 } from '../random.js';

const ROUNDS = 4;

export class TieOrder {
  readonly #salt: number;

  /** `salt`: the request's own (seed, request counter, direction). */
  constructor(salt: number) {
    this.#salt = salt;
  }

  /** Index (0 … n-1, in record-id order) of the row at `rank` of a second of `n` rows. */
  at(second: number, rank: number, n: number): number {
    if (n <= 1) return 0;
    let half = 1;
    while (2 ** (2 * half) < n) half++;
    const size = 2 ** half;
    const key = hash2(this.#salt, second);
    let x = rank;
    do {
      let left = Math.floor(x / size);
      let right = x % size;
      for (let round = 0; round < ROUNDS; round++) {
        const next = left ^ (hash2(key + round, right) % size);
        left = right;
        right = next;
      }
      x = left * size + right;
    } while (x >= n);
    return x;
  }
}
