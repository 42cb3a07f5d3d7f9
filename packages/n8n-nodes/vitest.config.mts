import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// n8n-core keeps its instance settings in ~/.n8n unless told otherwise: the engine tests get a
// folder of their own, removed when the run ends (test/harness/user-folder.mts).
const userFolder = mkdtempSync(join(tmpdir(), 'observation-n8n-tests-'));
// Its settings file (the encryption key) written here, once, before any worker starts: n8n writes
// it on first use, not atomically, and a worker starting n8n's instance settings beside another
// read it half written (CI of cd393e2: "Error parsing n8n-config file … not valid JSON").
mkdirSync(join(userFolder, '.n8n'));
writeFileSync(
  join(userFolder, '.n8n', 'config'),
  JSON.stringify({ encryptionKey: randomBytes(24).toString('base64') }, null, '\t'),
  { mode: 0o600 },
);

// Tests are .mts: @n8n/node-cli's strict lint (`n8n-node lint`, default eslint.config.mjs)
// applies n8n Cloud's rules to every *.ts file, which are the shipped node sources only.
// The alert proofs of issue 52 wait out real minutes (a cooldown across a kill, a chat down for
// two minutes) at about 2 % CPU: a project of their own (`test:alerts`), which `npm test` runs as
// its own task beside the others instead of holding this suite's two workers for five minutes.
const alerts = ['test/trigger-cooldown.test.mts', 'test/trigger-outage.test.mts'];

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      include: ['test/**/*.test.mts'],
      env: { N8N_USER_FOLDER: userFolder },
      globalSetup: ['test/harness/user-folder.mts'],
      provide: { userFolder },
      projects: [
        { extends: true, test: { name: 'n8n', exclude: [...alerts, '**/node_modules/**'] } },
        // A project's include adds to the shared one: everything else is excluded instead.
        {
          extends: true,
          test: { name: 'alerts', exclude: [...everyTestBut(alerts), '**/node_modules/**'] },
        },
      ],
    },
  }),
);

/** The package's test files and folders other than `keep` (relative, as vitest matches them). */
function everyTestBut(keep: string[]): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const files = readdirSync(join(here, 'test'), { withFileTypes: true }).map((entry) =>
    entry.isDirectory() ? `test/${entry.name}/**` : `test/${entry.name}`,
  );
  return ['src/**', ...files.filter((file) => !keep.includes(file))];
}
