import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// Core's test files run one after another in one worker, sharing its module cache: a fresh
// worker per file cost about a second each on a loaded 2-core CI runner. No file mocks modules or
// globals; the one that sets an environment variable restores it.
export default mergeConfig(sharedTestConfig, defineConfig({ test: { isolate: false } }));
