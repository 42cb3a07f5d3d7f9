/**
 * P6: catch-up after a 10 s outage at 1,000 events/s. P6-messy: the same against a service whose
 * same-second history rows come in a new order on every request and that shows a pushed event in
 * history only 1 s later (deployment notes, "History and the live feed"). Each run also counts the
 * requests the reconnect cost (every HTTP request the simulator served from the cut until the
 * read-back after the catch-up ended). The simulator (own process) streams at
 * 1,000 events/s; each outage cuts the socket and refuses reconnects for 10 s. Measured from the
 * reconnect (the new socket is open: state `backfilling`) to the delivery of the last event that
 * was missed while away: every id between the last one delivered before the cut and the first
 * one pushed live on the new socket. An event of that range never delivered, or any event
 * delivered twice, fails the figure whatever the time.
 */
import { createClient } from '@observation-service/core';
import type { SimulatorOptions } from '@observation-service/simulator';
import { now, sleep, until } from './lib/clock.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { round } from './lib/stats.ts';

interface Delivery {
  at: number;
  source: 'live' | 'backfill';
}

interface OutageRun {
  catchUpSeconds: number;
  requests: number;
  missedEvents: number;
  lostEvents: number;
  outageSeconds: number;
}

export async function p6OutageCatchUp({
  id = 'P6',
  runs,
  outageMs,
  rate,
  simulator = {},
  threshold = 2,
}: {
  id?: string;
  runs: number;
  outageMs: number;
  rate: number;
  simulator?: SimulatorOptions;
  threshold?: number;
}): Promise<Figure> {
  const sim = await SimulatorProcess.start({ form: 'extended', ...simulator });
  const warnings: string[] = [];
  const client = createClient({
    url: sim.addresses.siteUrl,
    serviceId: sim.addresses.serviceId,
    form: 'extended',
    auth: { token: sim.addresses.token },
    logger: { warn: (message) => warnings.push(message) },
  });
  const delivered = new Map<number, Delivery>();
  let duplicates = 0;
  let reconnectedAt = 0;
  try {
    const subscription = client.events.subscribe(
      'all',
      {
        onEvent(event, meta) {
          const id = event.id as number;
          if (delivered.has(id)) duplicates++;
          else delivered.set(id, { at: now(), source: meta.source });
        },
        onStateChange(state) {
          if (state === 'backfilling') reconnectedAt = now();
        },
      },
      // Reconnect attempts every ≤ 1 s, so the outage ends soon after the refusals stop; the
      // figure starts at the reconnect and does not depend on it.
      { backoff: { baseMs: 200, maxMs: 1_000 } },
    );
    await until(() => subscription.state === 'open', 'the subscription to open', 30_000);
    await sim.call('setRate', rate);
    // Warm-up: two seconds of live streaming before the first cut.
    await until(() => delivered.size >= rate, 'live events before the first outage', 30_000);
    await sleep(1_000);
    const results: OutageRun[] = [];
    for (let run = 0; run < runs; run++) {
      const lastBefore = Math.max(...delivered.keys());
      reconnectedAt = 0;
      const requestsBefore = (await sim.call<{ requests: number }>('stats')).requests;
      await sim.call('refuseConnections', outageMs);
      const cutAt = now();
      await sim.call('dropConnections');
      await until(() => reconnectedAt > 0, 'the reconnect after the outage', outageMs + 30_000);
      // The catch-up is over once an event pushed live on the new socket has been delivered:
      // core delivers the backfill first and the live events held back meanwhile after it.
      let firstLive: number | undefined;
      await until(
        () => {
          for (const [id, delivery] of delivered) {
            if (id > lastBefore && delivery.source === 'live' && delivery.at >= reconnectedAt) {
              if (firstLive === undefined || id < firstLive) firstLive = id;
            }
          }
          return firstLive !== undefined;
        },
        'the first live event after the reconnect',
        60_000,
        20,
      ).catch((error: unknown) => {
        throw new Error(
          `${error instanceof Error ? error.message : String(error)} (state ${subscription.state}, stats ${JSON.stringify(subscription.stats)}, warnings: ${[...new Set(warnings)].join('; ') || 'none'})`,
        );
      });
      const first = firstLive as number;
      // The read-back after the catch-up is part of it (it finds what history showed late), and
      // part of what the reconnect costs: the missed events are judged once it ended.
      await until(() => subscription.stats.readingBack === 0, 'the read-back', 60_000, 20);
      const requests = (await sim.call<{ requests: number }>('stats')).requests - requestsBefore;
      let lastMissedAt = reconnectedAt;
      let lost = 0;
      for (let id = lastBefore + 1; id < first; id++) {
        const delivery = delivered.get(id);
        if (delivery) lastMissedAt = Math.max(lastMissedAt, delivery.at);
        else lost++;
      }
      results.push({
        requests,
        catchUpSeconds: (lastMissedAt - reconnectedAt) / 1000,
        missedEvents: first - lastBefore - 1,
        lostEvents: lost,
        outageSeconds: (reconnectedAt - cutAt) / 1000,
      });
      await sleep(1_000);
    }
    await sim.call('setRate', 0);
    const { eventsEmitted } = await sim.call<{ eventsEmitted: number }>('stats');
    await until(() => delivered.size >= eventsEmitted, 'the last events', 5_000).catch(() => undefined);
    const lost = results.reduce((sum, r) => sum + r.lostEvents, 0);
    const problems: string[] = [];
    if (lost > 0) {
      problems.push(
        `${lost} event(s) missed during the outages were never delivered (per outage: ${results.map((r) => r.lostEvents).join(', ')})`,
      );
    }
    if (duplicates > 0) problems.push(`${duplicates} event(s) delivered twice`);
    for (const warning of new Set(warnings)) problems.push(`core warned: ${warning}`);
    return makeFigure({
      id,
      scenario: `catch-up after a ${outageMs / 1000} s outage @${rate.toLocaleString('en')}/s${
        simulator.historyTies === 'per-request' ? ', ties in any order' : ''
      }${simulator.historyLagMs ? `, history ${simulator.historyLagMs / 1000} s behind` : ''}`,
      unit: 's',
      digits: 3,
      runs: results.map((r) => r.catchUpSeconds),
      target: { kind: 'value-below', threshold },
      problems,
      details: {
        missedEvents: results.map((r) => r.missedEvents),
        requestsPerReconnect: results.map((r) => r.requests),
        lostEvents: results.map((r) => r.lostEvents),
        outageSeconds: results.map((r) => round(r.outageSeconds, 2)),
        eventsEmitted,
        eventsDelivered: delivered.size,
        duplicatesDelivered: duplicates,
      },
    });
  } finally {
    await client.close();
    await sim.stop();
  }
}
