import { relative } from 'node:path';
import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

// n8n require()s every file named in package.json's `n8n` field, so the output is CommonJS.
// The package has no runtime dependencies: core's portable entry (and the pure-JS codecs it
// uses) is bundled ONCE into dist/vendor/observation-core.js and every node file requires that
// one copy, which keeps the tarball small. The portable entry imports no Node built-in, no
// socket or HTTP library and no timer (n8n Cloud's rules; test/community-scanner.test.mts runs
// n8n's scanner on the tarball). n8n-workflow stays external: the instance provides it.

const vendorFile = 'dist/vendor/observation-core.js';

/** Points `@observation-service/core` imports at the single vendored copy. */
const useVendoredCore: Plugin = {
  name: 'use-vendored-core',
  setup(build) {
    build.onResolve({ filter: /^@observation-service\/core\/portable$/ }, (args) => {
      // Every entry below sits two folders deep under dist (nodes/<Name>/, credentials/ has no core import).
      const entryDir = 'dist/nodes/Any';
      if (args.importer.includes('/credentials/')) {
        throw new Error('credentials must not import core (keep the credential file light)');
      }
      return { path: relative(entryDir, vendorFile), external: true };
    });
  },
};

export default defineConfig([
  {
    entry: { 'vendor/observation-core': 'shared/core-bundle.ts' },
    format: ['cjs'],
    platform: 'node',
    target: 'node22',
    outDir: 'dist',
    noExternal: [/.*/],
    external: ['n8n-workflow'],
    minify: true,
    clean: false,
    sourcemap: false,
    dts: false,
  },
  {
    entry: {
      'credentials/ObservationApi.credentials': 'credentials/ObservationApi.credentials.ts',
      'nodes/Observation/Observation.node': 'nodes/Observation/Observation.node.ts',
      'nodes/ObservationTrigger/ObservationTrigger.node':
        'nodes/ObservationTrigger/ObservationTrigger.node.ts',
      'nodes/ObservationTaskTrigger/ObservationTaskTrigger.node':
        'nodes/ObservationTaskTrigger/ObservationTaskTrigger.node.ts',
    },
    format: ['cjs'],
    platform: 'node',
    target: 'node22',
    outDir: 'dist',
    external: ['n8n-workflow'],
    esbuildPlugins: [useVendoredCore],
    clean: false,
    sourcemap: false,
    dts: false,
  },
]);
