import { seededRandom } from '@observation-service/simulator';
import { describe, expect, it } from 'vitest';
import { simulator } from './helpers.js';
import { crashRun } from './support/crash-run.js';

/**
 * The crash guarantee's limits (core README, "A crash"), each exactly as stated: nothing is lost,
 * and what a restart repeats stays within the bound the README derives for that setup:
 * `positionSaveMs` of acknowledged events, plus a store's write time when `save` returns a promise
 * that resolves later, plus what was handed over and not yet acknowledged (up to `maxInFlight`).
 * The span that is measured (bench P14) is not asserted here; these are bounds.
 *
 * The README's figure, pinned: raising the default `positionSaveMs` must turn this red, not widen it.
 */
const SAVE_MS = 1_000;
/** The asynchronous store's write time. */
const WRITE_MS = 300;
/** The slow handler: each event acknowledged a random 0..HANDLER_MS after it was handed over. */
const HANDLER_MS = 150;
/** Timer lateness and file writes of three subscribers and the test on a busy 2-core machine. */
const SLACK_MS = 400;
const KILLS = 4;

describe('crash limits (SIGKILL), each bound as the README derives it', () => {
  it(`asynchronous store, maxInFlight above 1, positionSaveMs 0: ${KILLS} kills each, nothing lost, repeats within their bounds`, async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
    console.log(`crash-limits seed ${seed} (CRASH_SEED=${seed} repeats these kill points)`);
    const sim = await simulator({ form: 'extended' });
    const { emitted, outcomes } = await crashRun({
      sim,
      random: seededRandom(seed),
      kills: KILLS,
      upMs: 300,
      upJitterMs: 1_200,
      downJitterMs: 400,
      variants: [
        {
          name: 'async-store',
          env: { STORE_WRITE_MS: String(WRITE_MS) },
          windowMs: SAVE_MS + WRITE_MS + SLACK_MS,
        },
        {
          name: 'in-flight',
          env: { MAX_IN_FLIGHT: '8', HANDLER_MS: String(HANDLER_MS) },
          windowMs: SAVE_MS + HANDLER_MS + SLACK_MS,
        },
        { name: 'save-each', env: { SAVE_MS: '0' } },
      ],
    });
    for (const [name, outcome] of outcomes) console.log(`crash-limits ${name}: ${JSON.stringify(outcome)}`);
    expect(emitted).toBeGreaterThan(KILLS * 30);
    const asyncStore = outcomes.get('async-store');
    const inFlight = outcomes.get('in-flight');
    const saveEach = outcomes.get('save-each');
    for (const outcome of [asyncStore, inFlight, saveEach]) {
      expect(outcome?.lost).toEqual([]);
      expect(outcome?.twiceInOneRun).toBe(0);
    }
    // A store whose write lands WRITE_MS after save(): positionSaveMs plus that write.
    expect(asyncStore?.longestSpanMs).toBeLessThanOrEqual(SAVE_MS + WRITE_MS + SLACK_MS);
    // And in count: no more repeats than the run handled in that last stretch.
    expect(asyncStore?.mostRepeatedOverWindow).toBeLessThanOrEqual(0);
    // Handed over and not acknowledged come again too: positionSaveMs plus the handler's time.
    expect(inFlight?.longestSpanMs).toBeLessThanOrEqual(SAVE_MS + HANDLER_MS + SLACK_MS);
    expect(inFlight?.mostRepeatedOverWindow).toBeLessThanOrEqual(0);
    // Saved after every handled event (by a store that writes before save returns): a kill
    // repeats at most the one event it interrupted (maxInFlight 1).
    expect(saveEach?.mostRepeatedInOneRun).toBeLessThanOrEqual(1);
  }, 180_000);
});
