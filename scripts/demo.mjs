// Placeholder demo until the demo issue: start the simulator so flows can be developed offline.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cli = join(root, 'packages', 'simulator', 'dist', 'cli.js');
const child = spawn(process.execPath, [cli, '--port', process.env.PORT ?? '8080', ...process.argv.slice(2)], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
