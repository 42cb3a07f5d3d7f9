import { cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

// Node-RED require()s the node file, so it is one CommonJS entry whose `module.exports` is the
// registration function. The snapshot, the clip and the names come through the
// `observation-server` config node's own core client (duck-typed), which the one runtime
// dependency, @observation-service/node-red-observation, brings. Of core it bundles only the few
// small helpers it calls itself (the status throttle, the Node clock, describeValue): from core's
// sources, where esbuild drops every file the gallery does not use. Core's dist is one chunk, and
// bundling from it would drag jpeg-js and most of the client along (about 75 KB, or 1.3 MB with
// the Node entry's undici and ws). The editor file (.html) and the message catalogs and help
// (locales/) sit next to the node file, where Node-RED looks. The widget (src/ui) is Vite's job
// (vite.config.ts).
export default defineConfig({
  entry: { 'nodes/ui-observation-gallery': 'src/nodes/ui-observation-gallery.ts' },
  outDir: 'dist',
  format: ['cjs'],
  splitting: false,
  sourcemap: true,
  clean: true,
  dts: false,
  target: 'node22',
  esbuildOptions(options) {
    options.alias = {
      '@observation-service/core': fileURLToPath(new URL('../core/src/index.ts', import.meta.url)),
    };
  },
  onSuccess: async () => {
    cpSync('src/nodes/ui-observation-gallery.html', 'dist/nodes/ui-observation-gallery.html');
    cpSync('src/nodes/locales', 'dist/nodes/locales', { recursive: true });
  },
});
