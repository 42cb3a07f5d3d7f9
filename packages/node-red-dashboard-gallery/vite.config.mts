import { resolve } from 'node:path';
import { defineConfig } from 'vite';

/**
 * Dashboard 2 loads a third-party widget as `/resources/<package>/<output>` and then looks for
 * `window[<widget type>][<component>]`, so the UMD library name is the widget type and the file
 * lands in `resources/` (Node-RED serves a package's resources folder). Vue is the dashboard's
 * own copy (`window.Vue`), never bundled.
 */
const WIDGET = 'ui-observation-gallery';

export default defineConfig({
  publicDir: false,
  build: {
    outDir: resolve(import.meta.dirname, 'resources'),
    emptyOutDir: true,
    sourcemap: false,
    lib: {
      entry: resolve(import.meta.dirname, 'src/ui/index.ts'),
      name: WIDGET,
      formats: ['umd'],
      fileName: () => `${WIDGET}.umd.js`,
    },
    rollupOptions: {
      external: ['vue'],
      output: { globals: { vue: 'Vue' } },
    },
  },
});
