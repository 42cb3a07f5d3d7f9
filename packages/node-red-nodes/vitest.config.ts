import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// The whole suite runs once per Node-RED major: the harness loads the package NODE_RED_PACKAGE
// names (`node-red` is 5.x, `node-red-4` an npm alias of the last 4.x). The packed-tarball
// scorecard and the browser test do not depend on the runtime version and run once. So do two
// heavy proofs: the task watch across real restarts and kills of red.js, whose state goes through
// the position file's store (tested on both majors: durable-store, and the crash test below) and
// the context API both majors share; and the 50,000-event storm with 50 forced disconnects (about
// 70 s on 2 cores), which proves core's delivery through the node's send, the path every other
// events-node test runs on both majors. The SIGKILL crash test
// runs on both: it goes through Node-RED's own http request, file and complete nodes, which
// differ between majors, and a few kills per mode keep it cheap (CRASH_KILLS=20 by hand).
// The alert proofs of issue 52 wait out real minutes (a one-minute cooldown across a restart, a
// chat down for two minutes) on core's cooldown and pauses and the node's send: they run once,
// while the part of them that differs between majors (what http request does with a 503, and the
// recipe's check turning it into a failure) runs on both in events-alert-recipe.
const once = [
  'test/events-cooldown.test.ts',
  'test/events-outage.test.ts',
  'test/scorecard.test.ts',
  'test/task-watch-restart.test.ts',
  'test/events-never-lose.test.ts',
  'test/locales.test.ts',
  'test/readme.test.ts',
  'test/published-package.test.ts',
  'test/browser/**/*.test.ts',
];

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      projects: [
        {
          extends: true,
          test: { name: 'node-red-5', env: { NODE_RED_PACKAGE: 'node-red' } },
        },
        {
          extends: true,
          test: {
            name: 'node-red-4',
            env: { NODE_RED_PACKAGE: 'node-red-4' },
            exclude: [...once, '**/node_modules/**'],
          },
        },
      ],
    },
  }),
);
