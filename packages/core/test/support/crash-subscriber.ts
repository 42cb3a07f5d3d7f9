// Child process of crash-restart.test.ts: a subscriber whose position lives in a file (written
// atomically, as a host's durable store would) and that records every event it handles, with
// its handling time, before acknowledging it. The test kills it with SIGKILL: nothing here gets
// to close or flush anything.
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createClient } from '../../src/index.js';

const sim = JSON.parse(process.env.SIMULATOR ?? '{}') as { apiUrl: string; token: string; serviceId: string };
const stateFile = process.env.STATE_FILE as string;
const outFile = process.env.OUT_FILE as string;
const run = process.env.RUN as string;

const client = createClient({ url: sim.apiUrl, serviceId: sim.serviceId, auth: { token: sim.token } });
client.events.subscribe(
  'all',
  {
    onEvent(event) {
      // Synchronous, so the record is on disk before core counts the event as handled.
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
    // Default save interval (positionSaveMs 1000): the bound under test.
    lookBackMs: 60_000,
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
