/** The context store `node.context().get/set` use when no store is named. */
export interface DefaultContextStore {
  /** Its name in `contextStorage` (`memory` when none is configured). */
  name: string;
  /** `memory`, `localfilesystem`, or `custom` for a module given as an object. */
  module: string;
  /** Survives a restart of Node-RED: any module but `memory`. */
  persistent: boolean;
  /**
   * localfilesystem with its cache on (the default) writes what was set at most this many seconds
   * later (default 30): what a crash loses. 0 when it writes at once; undefined for other modules.
   */
  flushSeconds?: number;
}

const memory: DefaultContextStore = { name: 'memory', module: 'memory', persistent: false };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Which store is the default, read from `settings.contextStorage` the way Node-RED's context
 * loader picks it: `default` (an alias when it is a string), else the first store listed, else
 * the built-in memory store (a fresh settings.js sets none).
 */
export function defaultContextStore(contextStorage: unknown): DefaultContextStore {
  if (!isRecord(contextStorage)) return memory;
  const names = Object.keys(contextStorage).filter((name) => name !== '_');
  const alias = contextStorage.default;
  const name =
    typeof alias === 'string' ? alias : (names.find((candidate) => candidate === 'default') ?? names[0]);
  const config = name === undefined ? undefined : contextStorage[name];
  if (name === undefined || !isRecord(config)) return memory;
  const module = typeof config.module === 'string' ? config.module : config.module ? 'custom' : 'memory';
  const store: DefaultContextStore = { name, module, persistent: module !== 'memory' };
  if (module === 'localfilesystem') {
    const options = isRecord(config.config) ? config.config : {};
    const flush = Number(options.flushInterval ?? 30);
    store.flushSeconds = options.cache === false ? 0 : Number.isFinite(flush) ? Math.max(0, flush) : 30;
  }
  return store;
}
