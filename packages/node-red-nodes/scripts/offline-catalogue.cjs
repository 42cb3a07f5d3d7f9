// Preloaded into node-red-dev by scorecard.mjs. The scorecard downloads the flow library's
// catalogue (catalogue.nodered.org) to look for packages and node types with the same names;
// that host is not reachable from this project's machines (only the npm registry is). So that
// every other check still runs, requests to that one host are answered with an empty catalogue,
// and the scorecard report says which checks ran without it. Nothing else is intercepted.
const Module = require('node:module');

const CATALOGUE_HOST = 'catalogue.nodered.org';
const originalLoad = Module._load;
let patched = false;

Module._load = function load(request, parent, isMain) {
  const loaded = originalLoad.call(this, request, parent, isMain);
  if (request === 'axios' && !patched && loaded && typeof loaded.get === 'function') {
    patched = true;
    const originalGet = loaded.get.bind(loaded);
    loaded.get = (url, ...rest) => {
      if (typeof url === 'string' && new URL(url).host === CATALOGUE_HOST) {
        process.stderr.write(
          `[scorecard] ${CATALOGUE_HOST} is not reachable here: checked against an empty catalogue\n`,
        );
        return Promise.resolve({ status: 200, data: { modules: [] } });
      }
      return originalGet(url, ...rest);
    };
  }
  return loaded;
};
