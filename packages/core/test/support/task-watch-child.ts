// Child process of task-watch-exit.test.ts: watches, receives, closes, and must then exit on its
// own. Nothing here calls process.exit: a timer or socket left behind keeps it alive.
import { createClient } from '../../src/index.js';

const sim = JSON.parse(process.env.SIMULATOR ?? '{}') as { apiUrl: string; token: string; serviceId: string };
const scenario = process.env.SCENARIO ?? 'close';
const say = (line: string) => process.stdout.write(`${line}\n`);
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

const client = createClient({ url: sim.apiUrl, serviceId: sim.serviceId, auth: { token: sim.token } });
const controller = new AbortController();
let received = 0;
const watch = client.tasks.watch(
  { intervalMs: 1_000, emitInitial: true, ...(scenario === 'abort' ? { signal: controller.signal } : {}) },
  {
    onChange: async () => {
      received++;
      // An async handler: a pending one must not keep the process alive either.
      await new Promise((resolve) => setTimeout(resolve, 1));
    },
  },
);
await watch.poll();
// Wait for one timed poll, so the timer has fired and been re-armed at least once.
const polls = watch.stats.polls;
while (watch.stats.polls === polls) await new Promise((resolve) => setTimeout(resolve, 20));

if (scenario === 'close') await watch.close();
if (scenario === 'in-flight') {
  void watch.poll();
  await watch.close();
}
if (scenario === 'abort') controller.abort();
if (scenario !== 'client-close') say(`watch ${watch.state} timers=${timers()}`);
await client.close();
say(`closed ${watch.state} received=${received} timers=${timers()}`);
