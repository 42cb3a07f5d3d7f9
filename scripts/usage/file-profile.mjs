// With OBSERVATION_TEST_PROFILE=<folder>, file-usage.mjs calls this for each test file: V8's
// sampling profiler runs while the file runs, and its profile is written to
// <folder>/<file>.cpuprofile when the file ends (open it in Chrome's DevTools, or sum a folder's
// with the bench's `node bench/src/cpuprofile-top.ts <folder>/*.cpuprofile`). It sees the test
// process only, not the processes a test starts. Three of the suite's costliest files were the
// tests' own bookkeeping, found this way (a position copied at every emit, a file re-read at every
// poll, a parse at every save).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Profiles the test file running now into `folder`, under `name` (file-usage.mjs's row names it). */
export async function profileFile(folder, name) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1_000 });
  await session.post('Profiler.start');
  afterAll(async () => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `${name.replace(/[^\w.-]+/g, '_')}.cpuprofile`), JSON.stringify(profile));
  });
}
