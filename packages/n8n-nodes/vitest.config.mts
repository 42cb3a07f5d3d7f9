import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// n8n-core keeps its instance settings in ~/.n8n unless told otherwise: the engine tests get a
// folder of their own, removed when the run ends (test/harness/user-folder.mts).
const userFolder = mkdtempSync(join(tmpdir(), 'observation-n8n-tests-'));

// Tests are .mts: @n8n/node-cli's strict lint (`n8n-node lint`, default eslint.config.mjs)
// applies n8n Cloud's rules to every *.ts file, which are the shipped node sources only.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      include: ['test/**/*.test.mts'],
      env: { N8N_USER_FOLDER: userFolder },
      globalSetup: ['test/harness/user-folder.mts'],
      provide: { userFolder },
    },
  }),
);
