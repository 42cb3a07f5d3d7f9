/**
 * P11: how long a fresh start (no stored position) takes to reach its first live event on a busy
 * service: one that has published 200 events/s for the last 2 minutes and goes on doing so. The
 * simulator (own process) holds that past as history (24,000 events on the active tasks, the
 * newest right before the start) and streams live at 200/s. Measured from `subscribe()` to the
 * first event handed over live; the requests the client made to get there (REST, from the
 * simulator's own count) are reported beside it. A fresh start that read the allowed lateness of
 * history first (two minutes: 240 pages of 100) would take seconds and hundreds of requests.
 */
import { createClient } from '@observation-service/core';
import { now, until } from './lib/clock.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { median } from './lib/stats.ts';

interface Start {
  seconds: number;
  requests: number;
}

async function freshStart(sim: SimulatorProcess): Promise<Start> {
  const { siteUrl, serviceId, token } = sim.addresses;
  const client = createClient({ url: siteUrl, serviceId, form: 'extended', auth: { token } });
  const before = (await sim.call<{ requests: number }>('stats')).requests;
  let firstLiveAt: number | undefined;
  const started = now();
  const subscription = client.events.subscribe('all', {
    onEvent(_event, meta) {
      if (meta.source === 'live') firstLiveAt ??= now();
    },
  });
  try {
    await until(() => firstLiveAt !== undefined, 'the first live event', 30_000);
    const requests = (await sim.call<{ requests: number }>('stats')).requests - before;
    return { seconds: ((firstLiveAt as number) - started) / 1000, requests };
  } finally {
    await subscription.close();
    await client.close();
  }
}

export async function p11FreshStart({ runs }: { runs: number }): Promise<Figure> {
  const sim = await SimulatorProcess.start({
    form: 'extended',
    historySize: 24_000,
    historySpanMs: 120_000,
    historyTasks: 'active',
    rate: 200,
  });
  try {
    // One unmeasured start warms the JIT, the connection pool and the simulator's history pages.
    await freshStart(sim);
    const results: Start[] = [];
    for (let run = 0; run < runs; run++) results.push(await freshStart(sim));
    return makeFigure({
      id: 'P11',
      scenario: 'fresh start to the first live event, busy service (200/s for 2 min)',
      unit: 's',
      digits: 3,
      runs: results.map((result) => result.seconds),
      target: { kind: 'value-below', threshold: 1 },
      details: {
        requestsPerStart: results.map((result) => result.requests),
        medianRequests: median(results.map((result) => result.requests)),
        historyBehindTheStart: '24,000 events in the last 120 s',
        liveRate: 200,
      },
    });
  } finally {
    await sim.stop();
  }
}
