import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// One test file that starts the whole demo (simulator + Node-RED) and a browser: it gets the
// time a cold start on a busy 2-core machine needs.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({ test: { testTimeout: 120_000, hookTimeout: 120_000 } }),
);
