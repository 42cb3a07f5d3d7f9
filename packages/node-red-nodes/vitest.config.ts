import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
// chat down for two minutes) on core's cooldown and pauses and the node's send, at little CPU:
// they are a project of their own (`test:alerts`), which `npm test` runs as its own task beside
// the others instead of holding this suite's two workers for four minutes. They run on Node-RED 5
// only; the part that differs between majors (what http request does with a 503, and the recipe's
// check turning it into a failure) runs on both in events-alert-recipe.
const alerts = ['test/events-cooldown.test.ts', 'test/events-outage.test.ts'];

/** The package's test files and folders other than `keep` (relative, as vitest matches them). */
function everyTestBut(keep: string[]): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const files = readdirSync(join(here, 'test'), { withFileTypes: true }).map((entry) =>
    entry.isDirectory() ? `test/${entry.name}/**` : `test/${entry.name}`,
  );
  return ['src/**', ...files.filter((file) => !keep.includes(file))];
}
const once = [
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
      // Each file in a fresh module graph (vitest's default; the shared config turns it off):
      // Node-RED's runtime is made to be one per process. With one graph, runtimes started one
      // after another in a worker piled up listeners on the runtime's event bus, and two Node-RED 4
      // files went red in the fresh clone of c9165e3 (an HTTP error where a success was due; not
      // reproduced alone). Sharing would save about a seventh of these files' CPU (73 -> 64 CPU-s
      // for Node-RED 4's files, measured).
      isolate: true,
      projects: [
        {
          extends: true,
          test: {
            name: 'node-red-5',
            env: { NODE_RED_PACKAGE: 'node-red' },
            exclude: [...alerts, '**/node_modules/**'],
          },
        },
        {
          extends: true,
          test: {
            name: 'node-red-4',
            env: { NODE_RED_PACKAGE: 'node-red-4' },
            exclude: [...alerts, ...once, '**/node_modules/**'],
          },
        },
        {
          extends: true,
          // A project's include adds to the shared one: everything else is excluded instead.
          test: {
            name: 'alerts',
            env: { NODE_RED_PACKAGE: 'node-red' },
            exclude: [...everyTestBut(alerts), '**/node_modules/**'],
          },
        },
      ],
    },
  }),
);
