import type { Simulator, SimulatorOptions } from '@observation-service/simulator';
import { client, optionsFor, waiter } from './helpers.js';

/**
 * The messy deployment of the never-lose files (never-lose-messy: the 50,000-event storms;
 * never-lose-restarts: restarts, images and real-world lateness; both `test:storms`). The promise, tried the way a real deployment behaves rather than the way our client would like:
 * every camera has its own analysis latency (events arrive out of timestamp order on one socket),
 * same-second history rows come in a new order on every request, history shows a row a second
 * after it was pushed, 5% of events are published late (recorded and pushed seconds after they happened, only into
 * history while the client is cut off), history pages are capped below what is asked for (by
 * count and by size in bytes, so their length changes from page to page), record ids have other
 * writers' ids between them, and timestamps come as numbers. Through the real client (its own
 * REST history reader).
 */
// Every catch-up reads back the allowed lateness, so its cost is the event rate times the
// lateness: 50,000 events in well under a minute with the default two minutes would re-read most
// of the run at every one of 100 reconnects. The storm uses 3 s (camera latency and late
// publication scaled to fit inside it, as the guarantee requires); the tests below keep the
// default and its real-world delays at a realistic rate.
export const LATENESS_MS = 3_000;
export const messy = (form: 'extended' | 'basic'): SimulatorOptions => ({
  form,
  historySize: 0,
  cameraLatencyMs: { min: 0, max: 1_000 },
  // Late by up to the allowed lateness less the camera latency: the guarantee's stated limit.
  latePublication: { share: 0.05, minMs: 500, maxMs: LATENESS_MS - 1_000 },
  historyPageCap: 37,
  // Long VLM answers fill a page sooner: page lengths change from page to page.
  historyPageBytes: 16_384,
  numericTimestamps: true,
  // Same-second rows in a new order on every request, and history a second behind the live feed
  // (each row up to half a second more).
  historyTies: 'per-request',
  historyLagMs: 1_000,
  historyLagSpreadMs: 500,
  // Record ids with other writers' ids between them (other cameras writing at once), as a shared
  // database hands them out: a busy second's missing rows cannot be asked for as a run of ids.
  interleavedIds: 3,
});

/**
 * A fresh start covers the events that happen after it: one that happened before it (camera
 * latency, late publication) is delivered only when it arrives live. The storms emit once the
 * subscription has run longer than events can be late, so every event they count is covered.
 */
export async function pastTheStart(startedMs: number): Promise<void> {
  const wait = startedMs + LATENESS_MS + 1_000 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

export const until = waiter(60_000);

export function clientFor(sim: Simulator, form: 'extended' | 'basic') {
  return client(
    form === 'extended'
      ? optionsFor(sim, { form: 'extended' })
      : { ...optionsFor(sim, { form: 'basic' }), serviceId: undefined },
  );
}
