// With OBSERVATION_TEST_PROFILE=<folder>, file-usage.mjs loads this for each test file: V8's
// sampling profiler runs while the file runs, and its profile is written to
// <folder>/<file>.cpuprofile when the file ends (open it in Chrome's DevTools, or summarize a
// folder with scripts/usage/profile-top.mjs). It sees the test process only, not the processes a
// test starts. Three of the suite's costliest files were the tests' own bookkeeping, found this
// way (a position copied at every emit, a file re-read at every poll, a parse at every save).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join, relative } from 'node:path';
import { afterAll, expect } from 'vitest';

const folder = process.env.OBSERVATION_TEST_PROFILE;
const file = relative(process.cwd(), expect.getState().testPath ?? 'unknown');
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 1_000 });
await session.post('Profiler.start');

afterAll(async () => {
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const project = process.env.VITEST_PROJECT_NAME ?? process.env.NODE_RED_PACKAGE ?? '';
  const name = `${[project, file]
    .filter(Boolean)
    .join('-')
    .replace(/[^\w.-]+/g, '_')}.cpuprofile`;
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, name), JSON.stringify(profile));
});
