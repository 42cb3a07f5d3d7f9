#!/usr/bin/env node
// The package installed by name and updated through n8n's Community nodes screen, from a local
// registry, while a published example streams (community-install.mjs: an n8n with
// E2E_TESTS=true, a registry and a simulator of its own). A task of its own (the n8n package's
// `test:e2e-community`), so `npm test` runs it beside the other real-n8n checks instead of after
// them. Prints "N passed, N failed" and reports its checks as packages/n8n-nodes/
// .vitest-report.e2e-community.json. UPDATE_SCREENSHOTS=1 refreshes its screenshots in
// packages/n8n-nodes/docs.
import { join } from 'node:path';
import { communityInstall, communityShots } from './community-install.mjs';
import { checkList } from './n8n-cli.mjs';
import { e2eDir, ensureN8nInstall, packageDir, toolchainEnv } from './n8n-install.mjs';
import { reportChecks } from './package-report.mjs';

function log(message) {
  console.log(`\x1b[35m[e2e n8n community]\x1b[0m ${message}`);
}

async function main() {
  const env = toolchainEnv();
  const install = ensureN8nInstall({ env, log });
  if (!install.installed) log('n8n install is cached');
  const { checks, check } = checkList();
  const keep = process.env.UPDATE_SCREENSHOTS === '1';
  await communityInstall({
    check,
    log,
    env,
    shots: keep ? communityShots(join(packageDir, 'docs')) : undefined,
  });
  reportChecks(checks, {
    part: 'e2e-community',
    file: join(e2eDir, 'run-community.mjs'),
    suite: 'real n8n, Community nodes install',
    label: 'e2e community install',
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
