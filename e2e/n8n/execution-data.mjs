// n8n stores an execution's run data as `flatted` JSON (the REST API hands it out the same way);
// the parser is n8n's own dependency, resolved from its real folder in pnpm's store.
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { e2eDir } from './n8n-install.mjs';

let flatted;

/** n8n's run data from its stored `flatted` text; loads the parser once n8n is installed. */
export function parseFlatted(text) {
  flatted ??= createRequire(realpathSync(join(e2eDir, 'node_modules', 'n8n', 'package.json')))('flatted');
  return flatted.parse(text);
}
