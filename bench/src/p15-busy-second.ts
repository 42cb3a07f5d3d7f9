/**
 * P15: where reading one busy second whole stops. The simulator (own process) serves the rows of
 * one second in a new order on every request (`historyTies: 'per-request'`, as a database sorting
 * on the one-second wire time alone), so offset pages over that second skip some rows and repeat
 * others; core's historyAll reads such a second again, by record id where it can and else walk
 * after walk, up to 12 walks, then says it could not (core README, on ties). Per form and page
 * size, seconds of growing size are emitted (every row in one wall second) and read once with
 * historyAll narrowed to that second: how many distinct rows it delivered, how many requests and
 * how long it took. The figure is the largest second read whole before one was not, or before a
 * read took longer than the time limit (then larger ones are not tried). Reported, not judged: it
 * is where a guarantee ends, for the README to state.
 */
import { createClient } from '@observation-service/core';
import { now } from './lib/clock.ts';
import { type Figure, makeFigure } from './lib/figure.ts';
import type { HistoryForm } from './lib/history-readers.ts';
import { SimulatorProcess } from './lib/simulator-process.ts';
import { round } from './lib/stats.ts';

interface Variant {
  id: string;
  form: HistoryForm;
  /** Rows per page the service answers (its cap; the client asks for the form's maximum). */
  pageRows: number;
  /** Record ids other writers interleave (the simulator's interleavedIds). */
  interleavedIds: number;
}

interface Read {
  rows: number;
  delivered: number;
  whole: boolean;
  requests: number;
  seconds: number;
}

/** Waits for the start of a wall second, so that `rows` emitted at once share it. */
async function secondStart(): Promise<number> {
  for (;;) {
    const ms = Date.now();
    if (ms % 1000 < 20) return Math.floor(ms / 1000) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, 1000 - (ms % 1000))));
  }
}

async function readSecond(sim: SimulatorProcess, variant: Variant, rows: number): Promise<Read | undefined> {
  const secondMs = await secondStart();
  await sim.call('emit', rows, { latenessMs: 0 });
  // All in that second: else the emit outran it and this size cannot be made here.
  if (Date.now() >= secondMs + 1000) return undefined;
  const { siteUrl, serviceId, token } = sim.addresses;
  const client = createClient({
    url: siteUrl,
    form: variant.form,
    auth: { token },
    ...(variant.form === 'extended' ? { serviceId } : {}),
    logger: { warn: () => undefined },
  });
  const seen = new Set<string | number>();
  const before = (await sim.call<{ requests: number }>('stats')).requests;
  const started = now();
  try {
    for await (const event of client.events.historyAll({
      startTime: new Date(secondMs),
      endTime: new Date(secondMs + 999),
    })) {
      // The basic form has no record id: each event's snapshot URL is its own.
      seen.add(event.id ?? event.imageUrl ?? '');
    }
  } finally {
    await client.close();
  }
  const seconds = (now() - started) / 1000;
  const requests = (await sim.call<{ requests: number }>('stats')).requests - before;
  return { rows, delivered: seen.size, whole: seen.size === rows, requests, seconds };
}

export async function p15BusySecond({
  sizes = [1_000, 3_000, 10_000, 30_000, 60_000, 100_000],
  limitSeconds = 60,
}: {
  sizes?: number[];
  /** A read longer than this ends the variant: larger seconds are not tried. */
  limitSeconds?: number;
} = {}): Promise<Figure[]> {
  const variants: Variant[] = [
    { id: 'P15-extended-100', form: 'extended', pageRows: 100, interleavedIds: 0 },
    { id: 'P15-extended-37', form: 'extended', pageRows: 37, interleavedIds: 0 },
    { id: 'P15-extended-100-interleaved', form: 'extended', pageRows: 100, interleavedIds: 3 },
    { id: 'P15-basic-10000', form: 'basic', pageRows: 10_000, interleavedIds: 0 },
    { id: 'P15-basic-37', form: 'basic', pageRows: 37, interleavedIds: 0 },
  ];
  const figures: Figure[] = [];
  for (const variant of variants) {
    const reads: Read[] = [];
    let wholeUpTo = 0;
    /** A size the simulator could not emit within one wall second: larger ones are not tried. */
    let notEmitted: number | undefined;
    for (const rows of sizes) {
      // A fresh simulator per size: only that second in history.
      const sim = await SimulatorProcess.start({
        form: 'both',
        historySize: 0,
        historyTies: 'per-request',
        historyPageCap: variant.pageRows,
        interleavedIds: variant.interleavedIds,
      });
      let read: Read | undefined;
      try {
        read = await readSecond(sim, variant, rows);
      } finally {
        await sim.stop();
      }
      if (!read) {
        notEmitted = rows;
        break;
      }
      reads.push(read);
      if (!read.whole) break;
      wholeUpTo = rows;
      if (read.seconds > limitSeconds) break;
    }
    figures.push(
      makeFigure({
        id: variant.id,
        scenario: `one busy second read whole, ${variant.form}, pages of ${variant.pageRows.toLocaleString('en')}${variant.interleavedIds > 0 ? `, ids interleaved (up to ${variant.interleavedIds})` : ''}: largest second read whole`,
        unit: 'rows',
        digits: 0,
        runs: [wholeUpTo],
        target: { kind: 'report' },
        details: {
          reads: reads.map((read) => ({ ...read, seconds: round(read.seconds, 2) })),
          limitSeconds,
          ...(notEmitted === undefined ? {} : { notEmittedInOneSecond: notEmitted }),
        },
      }),
    );
  }
  return figures;
}
