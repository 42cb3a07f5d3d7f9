#!/usr/bin/env node
// Paging 100k history events: core's historyAll (prefetch + normalization) against a naive
// sequential undici loop (request, JSON.parse, next offset), in both forms. The simulator runs
// in its own process, and every variant runs in a fresh child process so peak RSS is its own.
//
//   pnpm --filter @observation-service/core build && node packages/core/bench/history-paging.mjs
//   options: --events 100000 --runs 3 --json
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const simulatorCli = fileURLToPath(new URL('../../simulator/dist/cli.js', import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const index = args.indexOf(name);
  return index === -1 ? fallback : args[index + 1];
};

async function runVariant() {
  const variant = flag('--variant');
  const apiUrl = flag('--api');
  const token = flag('--token');
  const serviceId = flag('--service-id');
  const form = flag('--form');
  const started = performance.now();
  let count = 0;
  if (variant === 'core') {
    const { createClient } = await import('../dist/index.js');
    const client = createClient({ url: apiUrl, auth: { token }, serviceId: serviceId || undefined, form });
    for await (const _event of client.events.historyAll()) count++;
    await client.close();
  } else {
    // naive: what a user writes by hand; naive+normalize: the same loop doing core's per-event
    // work too, to separate the pager's effect from the cost of normalization.
    const normalize =
      variant === 'naive+normalize' ? (await import('../dist/index.js')).normalizeEvent : undefined;
    const { Agent, request } = await import('undici');
    const dispatcher = new Agent();
    const limit = form === 'basic' ? 10_000 : 100;
    const headers = { authorization: `Bearer ${token}` };
    if (serviceId) headers['x-service-id'] = serviceId;
    for (let offset = 0; ; offset += limit) {
      const res = await request(`${apiUrl}/events/history?offset=${offset}&limit=${limit}`, {
        headers,
        dispatcher,
      });
      const page = await res.body.json();
      if (normalize) for (const raw of page) normalize(raw);
      count += page.length;
      if (page.length < limit) break;
    }
    await dispatcher.close();
  }
  const ms = performance.now() - started;
  process.stdout.write(
    `${JSON.stringify({ variant, form, count, ms, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
  );
}

async function startSimulatorProcess(form, events) {
  const child = spawn(
    process.execPath,
    [simulatorCli, '--port', '0', '--rate', '0', '--form', form, '--history-size', String(events), '--json'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const [line] = await once(lines, 'line');
  return { child, info: JSON.parse(line) };
}

async function runChild(childArgs) {
  const child = spawn(process.execPath, [self, ...childArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`variant failed: ${childArgs.join(' ')}`);
  return JSON.parse(out.trim());
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const events = Number(flag('--events', '100000'));
  const runs = Number(flag('--runs', '3'));
  const results = [];
  for (const form of ['extended', 'basic']) {
    const { child, info } = await startSimulatorProcess(form, events);
    try {
      for (const variant of ['core', 'naive', 'naive+normalize']) {
        const samples = [];
        for (let run = 0; run < runs; run++) {
          const sample = await runChild([
            '--variant',
            variant,
            '--api',
            info.apiUrl,
            '--token',
            info.token,
            '--service-id',
            form === 'extended' ? info.serviceId : '',
            '--form',
            form,
          ]);
          if (sample.count !== events)
            throw new Error(`${variant}/${form} read ${sample.count} of ${events}`);
          samples.push(sample);
        }
        results.push({
          form,
          variant,
          events,
          medianMs: Math.round(median(samples.map((s) => s.ms))),
          eventsPerSecond: Math.round(events / (median(samples.map((s) => s.ms)) / 1000)),
          peakRssMb: Math.round(Math.max(...samples.map((s) => s.maxRssMb))),
        });
      }
    } finally {
      child.kill();
      await once(child, 'exit');
    }
  }
  if (args.includes('--json')) console.log(JSON.stringify(results));
  else console.table(results);
}

if (flag('--variant')) await runVariant();
else await main();
