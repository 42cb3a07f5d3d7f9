import { defineConfig } from 'tsup';

// ESM for both entries; a CommonJS copy of the library entry too, so `require()` users (and
// TypeScript's node16 CommonJS resolution) get a real CommonJS module instead of ESM. The CLI
// stays ESM only (it awaits at top level). `shims` gives the CommonJS copy `import.meta.url`,
// which the media assets are located with. `build` empties dist first (two configs, one folder).
export default defineConfig([
  {
    entry: ['src/index.ts', 'src/cli.ts'],
    format: ['esm'],
    dts: { entry: 'src/index.ts' },
    sourcemap: true,
    clean: false,
    target: 'node22',
  },
  {
    entry: ['src/index.ts'],
    format: ['cjs'],
    dts: { entry: 'src/index.ts' },
    shims: true,
    sourcemap: true,
    clean: false,
    target: 'node22',
  },
]);
