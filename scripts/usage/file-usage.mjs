// A vitest setup file (vitest.shared.ts): runs before each test file in the file's own worker,
// and appends the file's wall and CPU seconds to `.vitest-usage.jsonl` in the package folder when
// the file ends, so `npm test` can say where its minutes go (scripts/usage/report.mjs). A worker
// runs one file at a time, so the CPU counted between the two points is this file's: its own and
// that of every process it started and waited for (Node-RED, n8n, a browser).
import { appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, expect } from 'vitest';
import { cpuSecondsWithChildren } from './cpu-seconds.mjs';

export const usageFileName = '.vitest-usage.jsonl';

const file = expect.getState().testPath ?? 'unknown';
const project = process.env.VITEST_PROJECT_NAME ?? process.env.NODE_RED_PACKAGE ?? '';
const startedAt = performance.now();
const cpuAtStart = cpuSecondsWithChildren();

// Opt-in: a CPU profile of each test file (file-profile.mjs says how).
if (process.env.OBSERVATION_TEST_PROFILE) {
  const { profileFile } = await import('./file-profile.mjs');
  await profileFile(
    process.env.OBSERVATION_TEST_PROFILE,
    [project, relative(process.cwd(), file)].filter(Boolean).join('-'),
  );
}

afterAll(() => {
  const row = {
    file: relative(process.cwd(), file),
    project,
    wallSeconds: (performance.now() - startedAt) / 1000,
    cpuSeconds: cpuSecondsWithChildren() - cpuAtStart,
  };
  appendFileSync(join(process.cwd(), usageFileName), `${JSON.stringify(row)}\n`);
});
