import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

// Node-RED require()s each node file, so every node is its own CommonJS entry whose
// `module.exports` is the registration function (esbuild turns the sources' `export =` into that).
// The editor files (.html), message catalogs and icons sit next to the .js, where Node-RED looks.
export default defineConfig({
  entry: {
    'observation-server': 'src/nodes/observation-server.ts',
    'observation-events': 'src/nodes/observation-events.ts',
    'observation-query': 'src/nodes/observation-query.ts',
  },
  outDir: 'dist/nodes',
  format: ['cjs'],
  splitting: false,
  sourcemap: true,
  clean: true,
  dts: false,
  target: 'node22',
  onSuccess: async () => {
    for (const entry of ['observation-server', 'observation-events', 'observation-query']) {
      cpSync(`src/nodes/${entry}.html`, `dist/nodes/${entry}.html`);
    }
    cpSync('src/nodes/locales', 'dist/nodes/locales', { recursive: true });
    cpSync('src/nodes/icons', 'dist/nodes/icons', { recursive: true });
  },
});
