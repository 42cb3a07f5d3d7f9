// The demo's view of e2e/n8n/n8n-install.mjs, the one copy of the install steps the
// end-to-end test also uses (so the demo and that test share one n8n install and one cache stamp).
import {
  e2eDir,
  ensureN8nInstall,
  installPackedNodes as installPacked,
  n8nBin,
  nodeBin,
  packageDir,
} from '../../e2e/n8n/n8n-install.mjs';

export { packageName } from '../../e2e/n8n/n8n-install.mjs';

/** Where things are (the same for every repository root: the module knows its own place). */
export function n8nPaths() {
  return { e2eDir, packageDir, n8nBin, nodeBin };
}

/** Installs n8n into e2e/n8n/node_modules once (about 2 GB); returns whether it installed. */
export function ensureN8nInstalled(_paths, env, log) {
  return ensureN8nInstall({ env, log }).installed;
}

/** Packs the built package and installs it as a community package; returns its version. */
export function installPackedNodes(_paths, userFolder, env) {
  return installPacked(userFolder, { env }).version;
}
