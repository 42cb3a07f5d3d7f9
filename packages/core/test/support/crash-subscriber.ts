// Child process of the crash tests (crash-restart.test.ts, crash-limits.test.ts): a subscriber
// whose position lives in a file (written atomically, as a host's durable store would) and that
// records every event it is handed, with the time, before the handler acknowledges it. The test
// kills it with SIGKILL: nothing here gets to close or flush anything.
//
// Optional knobs (environment), each a documented limit of the crash guarantee:
// - SAVE_MS: `positionSaveMs` (default: core's default);
// - STORE_WRITE_MS: the store's `save` returns a promise and the write lands this much later;
// - MAX_IN_FLIGHT and HANDLER_MS: that many events with the handler at once, each acknowledged
//   after a random 0..HANDLER_MS (so out of order).
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { StoredPosition } from '../../src/index.js';

// The built package when crash-run.ts found it current, else the sources (through its hooks).
const { createClient } = (await import(
  process.env.CORE_ENTRY ?? '../../src/index.js'
)) as typeof import('../../src/index.js');

const sim = JSON.parse(process.env.SIMULATOR ?? '{}') as { apiUrl: string; token: string; serviceId: string };
const stateFile = process.env.STATE_FILE as string;
const outFile = process.env.OUT_FILE as string;
const run = process.env.RUN as string;
const knob = (name: string): number | undefined =>
  process.env[name] === undefined ? undefined : Number(process.env[name]);
const saveMs = knob('SAVE_MS');
const storeWriteMs = knob('STORE_WRITE_MS');
const maxInFlight = knob('MAX_IN_FLIGHT');
const handlerMs = knob('HANDLER_MS') ?? 0;

function write(position: StoredPosition): void {
  writeFileSync(`${stateFile}.tmp`, JSON.stringify(position));
  renameSync(`${stateFile}.tmp`, stateFile);
}

const client = createClient({ url: sim.apiUrl, serviceId: sim.serviceId, auth: { token: sim.token } });
client.events.subscribe(
  'all',
  {
    onEvent(event) {
      // Synchronous, so the record is on disk before core counts the event as handled.
      appendFileSync(outFile, `${run} ${event.id} ${Date.now()}\n`);
      if (handlerMs === 0) return;
      return new Promise<void>((resolve) => setTimeout(resolve, Math.random() * handlerMs));
    },
    onStateChange(state) {
      if (state === 'open') process.stdout.write('open\n');
    },
    onError(error) {
      if ((error as { code?: string }).code !== 'CONNECTION_LOST') process.stderr.write(`${error.message}\n`);
    },
  },
  {
    lookBackMs: 60_000,
    ...(saveMs === undefined ? {} : { positionSaveMs: saveMs }),
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
    position: {
      load() {
        try {
          return JSON.parse(readFileSync(stateFile, 'utf8'));
        } catch {
          return undefined;
        }
      },
      save(position) {
        if (storeWriteMs === undefined) {
          write(position);
          return;
        }
        // A remote store: the write lands when the promise resolves, not when save is called.
        return new Promise<void>((resolve) =>
          setTimeout(() => {
            write(position);
            resolve();
          }, storeWriteMs),
        );
      },
    },
  },
);
