import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

// Node-RED require()s the node file, so it is one CommonJS entry whose `module.exports` is the
// registration function. It bundles nothing of core: the snapshot, the clip and the names come
// through the `observation-server` config node's own core client (duck-typed), which the one
// runtime dependency, @observation-service/node-red-observation, brings. The editor file
// (.html) and the message catalogs and help (locales/) sit next to the node file, where
// Node-RED looks. The widget (src/ui) is Vite's job (vite.config.ts).
export default defineConfig({
  entry: { 'nodes/ui-observation-gallery': 'src/nodes/ui-observation-gallery.ts' },
  outDir: 'dist',
  format: ['cjs'],
  splitting: false,
  sourcemap: true,
  clean: true,
  dts: false,
  target: 'node22',
  onSuccess: async () => {
    cpSync('src/nodes/ui-observation-gallery.html', 'dist/nodes/ui-observation-gallery.html');
    cpSync('src/nodes/locales', 'dist/nodes/locales', { recursive: true });
  },
});
