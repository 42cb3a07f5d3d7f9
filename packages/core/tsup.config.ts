import { defineConfig } from 'tsup';

// ESM for modern hosts, CJS because Node-RED and n8n load nodes with require().
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
});
