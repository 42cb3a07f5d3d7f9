import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// One rehearsal: a clone, a registry and real installs from it.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({ test: { testTimeout: 300_000, hookTimeout: 120_000 } }),
);
