/**
 * P5's client, in a fresh process so its RSS is its own: streams every history event through
 * core's historyAll and samples the resident set size. Prints one JSON line.
 *   node history-memory.ts '<addresses json>' <form> <warmUpEvents>
 *
 * Two growths are reported. `coldGrowthMb` counts from before the first request: it includes V8
 * sizing its heap for the allocation rate of any HTTP paging loop (a naive undici loop grows as
 * much). `growthMb` counts from the end of the warm-up (the first `warmUpEvents`) to the peak
 * over the rest of the stream: memory that grows with the number of events streamed.
 */
import { createClient } from '@observation-service/core';
import type { SimulatorAddresses } from '../lib/simulator-process.ts';

const addresses = JSON.parse(process.argv[2] ?? '{}') as SimulatorAddresses;
const form = process.argv[3] === 'basic' ? 'basic' : 'extended';
const warmUpEvents = Number(process.argv[4] ?? '100000');

const mb = (bytes: number) => bytes / 1024 / 1024;
const rss = () => process.memoryUsage.rss();
const before = rss();
let warm: number | undefined;
let coldPeak = before;
let warmPeak = 0;
const sample = () => {
  const now = rss();
  coldPeak = Math.max(coldPeak, now);
  if (warm !== undefined) warmPeak = Math.max(warmPeak, now);
};
const sampler = setInterval(sample, 20);

const client = createClient({
  url: addresses.apiUrl,
  form,
  auth: { token: addresses.token },
  ...(form === 'extended' ? { serviceId: addresses.serviceId } : {}),
});
const started = performance.now();
let count = 0;
let sink = 0;
for await (const event of client.events.historyAll()) {
  sink += event.taskId;
  count++;
  if (count === warmUpEvents) {
    warm = rss();
    warmPeak = warm;
  }
}
const seconds = (performance.now() - started) / 1000;
sample();
clearInterval(sampler);
await client.close();
if (sink === 0) throw new Error('history events without task ids');
const peakSeen = Math.max(coldPeak, process.resourceUsage().maxRSS * 1024);
process.stdout.write(
  `${JSON.stringify({
    count,
    seconds,
    rssBeforeMb: mb(before),
    rssWarmMb: mb(warm ?? Number.NaN),
    rssPeakMb: mb(peakSeen),
    growthMb: mb(warmPeak - (warm ?? Number.NaN)),
    coldGrowthMb: mb(peakSeen - before),
  })}\n`,
);
