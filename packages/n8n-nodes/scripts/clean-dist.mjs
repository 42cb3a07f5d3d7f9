// tsup runs its two builds (vendored core, nodes) in parallel, so neither may clean the shared
// output folder: it is emptied once here instead.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

rmSync(join(dirname(dirname(fileURLToPath(import.meta.url))), 'dist'), { recursive: true, force: true });
