import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// Core's test files run one after another in one worker, sharing its module cache: a fresh
// worker per file cost about a second each on a loaded 2-core CI runner. No file mocks modules or
// globals; the one that sets an environment variable restores it.
//
// The 50,000-event storms and the other never-lose files on the messy deployment (3-4.5 minutes
// on 2 cores, mostly waiting, run side by side) are a project of their own, so that
// `npm test` runs them as a task of their own, in a lane beside the rest of core
// (scripts/test-lanes.mjs): `test` runs the project `core`, `test:storms` the project
// `storms`. `vitest run` with no project, or with a file named, runs whichever holds it. The
// shared include is given to `core` alone: a project's include adds to the root's, it does not
// replace it.
const storms = ['test/never-lose-messy.test.ts', 'test/never-lose-restarts.test.ts'];
const { include: everyTestFile, ...shared } = sharedTestConfig.test ?? {};

export default defineConfig({
  ...sharedTestConfig,
  test: {
    ...shared,
    projects: [
      {
        extends: true,
        test: { name: 'core', include: everyTestFile, exclude: [...storms, '**/node_modules/**'] },
      },
      { extends: true, test: { name: 'storms', include: storms } },
    ],
  },
});
