// Child process of process-exit.test.ts: subscribes, receives, closes, and must then exit on its
// own. Nothing here calls process.exit: a timer, socket or listener left behind keeps it alive.
import { createSubscription } from '../subscription-handle.js';
import { simulatorContext } from './simulator-context.js';

const sim = JSON.parse(process.env.SIMULATOR ?? '{}');
const scenario = process.env.SCENARIO ?? 'open';
const say = (line: string) => process.stdout.write(`${line}\n`);

const controller = new AbortController();
let received = 0;
const sub = createSubscription(
  simulatorContext(sim, scenario === 'basic-all' ? { form: 'basic', serviceId: null } : {}),
  'all',
  {
    onEvent: async () => {
      received++;
      // An async handler: a pending one must not keep the process alive either.
      await new Promise((resolve) => setTimeout(resolve, 1));
    },
  },
  {
    heartbeatMs: 100,
    backoff: { baseMs: 10, maxMs: 5_000 },
    taskRefreshMs: 50,
    ...(scenario === 'abort' ? { signal: controller.signal } : {}),
  },
);

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};
await until(() => sub.state === 'open');
say('open');
// The parent emits events and, in some scenarios, cuts the connection.
await until(() => received > 0);
if (scenario === 'reconnecting') await until(() => sub.state === 'reconnecting');
if (scenario === 'abort') controller.abort();
await sub.close();
say(`closed ${sub.state} ${received}`);
