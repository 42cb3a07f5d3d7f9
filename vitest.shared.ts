import { defineConfig } from 'vitest/config';

/**
 * Every package reports to `.vitest-report.json` so `npm test` can print one honest total,
 * and gives socket-bound tests room on a busy 2-core machine.
 */
export const sharedTestConfig = defineConfig({
  test: {
    reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
