// Child of P14 (p14-crash-repeat-span.ts): core's subscription with a file position (written
// atomically before `save` returns) and default options, recording every event it is handed,
// with the time, before it acknowledges it. P14 kills it with SIGKILL: nothing here gets to
// close or flush anything.
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createClient } from '@observation-service/core';

const sim = JSON.parse(process.env.SIMULATOR ?? '{}') as {
  siteUrl: string;
  token: string;
  serviceId: string;
};
const stateFile = process.env.STATE_FILE as string;
const outFile = process.env.OUT_FILE as string;
const run = process.env.RUN as string;

const client = createClient({
  url: sim.siteUrl,
  serviceId: sim.serviceId,
  form: 'extended',
  auth: { token: sim.token },
});
client.events.subscribe(
  'all',
  {
    onEvent(event) {
      // Synchronous: the record is on disk before core counts the event as handled.
      appendFileSync(outFile, `${run} ${event.id} ${Date.now()}\n`);
    },
    onStateChange(state) {
      if (state === 'open') process.stdout.write('open\n');
    },
    onError(error) {
      if ((error as { code?: string }).code !== 'CONNECTION_LOST') process.stderr.write(`${error.message}\n`);
    },
  },
  {
    // Default positionSaveMs (1 s): the bound the figure is judged against.
    position: {
      load() {
        try {
          return JSON.parse(readFileSync(stateFile, 'utf8'));
        } catch {
          return undefined;
        }
      },
      save(position) {
        writeFileSync(`${stateFile}.tmp`, JSON.stringify(position));
        renameSync(`${stateFile}.tmp`, stateFile);
      },
    },
  },
);
