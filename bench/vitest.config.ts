import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../vitest.shared.ts';

// The bench's own checks (not its measurements): each starts a child process or two.
export default mergeConfig(sharedTestConfig, defineConfig({ test: { testTimeout: 60_000 } }));
