import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// The Node-RED suites run once per Node-RED major, as in the Node-RED package: the harness loads
// the package NODE_RED_PACKAGE names (`node-red` is 5.x, `node-red-4` an npm alias of the last
// 4.x). The plain-logic tests do not depend on Node-RED and run once. So do the browser tests:
// what they drive is Dashboard 2's page and our widget in it, the same on both majors, while the
// gallery node's runtime side (gallery-node.test.ts) runs on both.
const once = [
  'test/gallery-state.test.ts',
  'test/card-list.test.ts',
  'test/read-event.test.ts',
  'test/locales.test.ts',
  'test/package-contents.test.ts',
  'test/published-package.test.ts',
  'test/editor.browser.test.ts',
  'test/theme.browser.test.ts',
  'test/language.browser.test.ts',
  'test/gallery.browser.test.ts',
];

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      // Each file in a fresh module graph, as the Node-RED nodes' tests (their config says why).
      isolate: true,
      projects: [
        { extends: true, test: { name: 'node-red-5', env: { NODE_RED_PACKAGE: 'node-red' } } },
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
