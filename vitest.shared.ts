import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Every package reports to `.vitest-report.json` so `npm test` can print one honest total,
 * and gives socket-bound tests room on a busy 2-core machine. A package task that runs part of a
 * package's tests on its own (core's `test:storms`) names its own report,
 * `--outputFile.json=.vitest-report.<part>.json`: `npm test` counts every `.vitest-report*.json`.
 */
export const sharedTestConfig = defineConfig({
  test: {
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll's own default (1 s) ran out in CI while the n8n lane loaded both cores; a poll
    // that passes returns as soon as it does, so only a failing one waits the longer time.
    expect: { poll: { timeout: 15_000 } },
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Two files at a time per package (vitest's default on 2 cores is one): most test files
    // mostly wait on sockets and child processes (CPU 10-67 % of their wall time, measured), and
    // `npm test` runs several packages' tasks beside each other too (scripts/test-lanes.mjs).
    maxWorkers: 2,
    // A worker runs its files one after another in one module graph instead of a fresh one per
    // file: each file no longer loads n8n's engine or vitest's own modules again, about half of
    // the n8n unit tests' CPU (121 against 62 CPU-s, measured) and a third of the simulator's.
    // Each test starts its own hosts, simulators and folders. The Node-RED packages keep a fresh
    // graph per file (their configs say why).
    isolate: false,
    // Each file's wall and CPU seconds, for the table `npm test` prints at its end.
    setupFiles: [fileURLToPath(new URL('./scripts/usage/file-usage.mjs', import.meta.url))],
  },
});
