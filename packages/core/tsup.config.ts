import { defineConfig } from 'tsup';

// ESM for modern hosts, CJS because Node-RED and n8n load nodes with require().
export default defineConfig({
  // Two entry points over one codebase: index (Node defaults) and portable (host-supplied ports).
  entry: ['src/index.ts', 'src/portable.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
});
