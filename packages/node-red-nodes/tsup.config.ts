import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

const NODES = ['observation-server', 'observation-events', 'observation-query', 'observation-task-watch'];
/** The one module the node files and the annotation worker share, as they import it (kept as a require, not inlined). */
const RUNTIME = ['../lib/runtime.js', './runtime.js'];

// Node-RED require()s each node file, so every node is its own small CommonJS entry whose
// `module.exports` is the registration function (esbuild turns the sources' `export =` into that).
// What they run lives in dist/lib/runtime.js, built once, with @observation-service/core bundled
// in: core is not published on its own, so the package must not depend on it. Core's own
// dependencies (ws, undici, fflate, jpeg-js) stay external and are this package's dependencies.
// The editor files (.html), message catalogs and icons sit next to the node files, where
// Node-RED looks.
export default defineConfig({
  entry: {
    'lib/runtime': 'src/lib/runtime.ts',
    // The annotation worker thread: a file of its own, started by the runtime (lib/annotator.ts).
    'lib/annotate-worker': 'src/lib/annotate-worker.ts',
    ...Object.fromEntries(NODES.map((name) => [`nodes/${name}`, `src/nodes/${name}.ts`])),
  },
  outDir: 'dist',
  format: ['cjs'],
  splitting: false,
  noExternal: ['@observation-service/core'],
  external: RUNTIME,
  sourcemap: true,
  clean: true,
  dts: false,
  target: 'node22',
  onSuccess: async () => {
    for (const name of NODES) cpSync(`src/nodes/${name}.html`, `dist/nodes/${name}.html`);
    cpSync('src/nodes/locales', 'dist/nodes/locales', { recursive: true });
    cpSync('src/nodes/icons', 'dist/nodes/icons', { recursive: true });
  },
});
