// The one place core enters the build: tsup bundles core's portable entry (no Node built-in, no
// timer; see tsup.config.mts) into dist/vendor/observation-core.js, which every node requires.
export * from '@observation-service/core/portable';
