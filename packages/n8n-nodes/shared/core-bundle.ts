// The one place core enters the build: tsup bundles this file (core, undici, ws) into
// dist/vendor/observation-core.js, which every node requires.
export * from '@observation-service/core';
