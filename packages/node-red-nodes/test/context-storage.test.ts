import { describe, expect, it } from 'vitest';
import { defaultContextStore } from '../src/lib/context-storage.js';

// A pure reading of settings.js; the stores it names are run for real in task-watch-restart.test.ts.
describe('default context store from settings.contextStorage', () => {
  it('a fresh settings.js (nothing set) and an explicit memory store are not persistent', () => {
    const memory = { name: 'memory', module: 'memory', persistent: false };
    expect(defaultContextStore(undefined)).toEqual(memory);
    expect(defaultContextStore({})).toEqual(memory);
    expect(defaultContextStore({ default: { module: 'memory' } })).toEqual({ ...memory, name: 'default' });
  });

  it('localfilesystem is persistent, with its flush interval (default 30 s, 0 without cache)', () => {
    expect(defaultContextStore({ default: { module: 'localfilesystem' } })).toEqual({
      name: 'default',
      module: 'localfilesystem',
      persistent: true,
      flushSeconds: 30,
    });
    expect(
      defaultContextStore({ default: { module: 'localfilesystem', config: { flushInterval: 5 } } })
        .flushSeconds,
    ).toBe(5);
    expect(
      defaultContextStore({ default: { module: 'localfilesystem', config: { cache: false } } }).flushSeconds,
    ).toBe(0);
  });

  it('follows a default alias, else takes the first store listed, as Node-RED does', () => {
    const stores = { memoryOnly: { module: 'memory' }, file: { module: 'localfilesystem' } };
    expect(defaultContextStore({ ...stores, default: 'file' })).toMatchObject({
      name: 'file',
      persistent: true,
    });
    expect(defaultContextStore(stores)).toMatchObject({ name: 'memoryOnly', persistent: false });
    expect(defaultContextStore({ file: stores.file, memoryOnly: stores.memoryOnly })).toMatchObject({
      name: 'file',
      persistent: true,
    });
  });

  it('a module given as an object (a custom store, e.g. Redis) counts as persistent', () => {
    const custom = () => ({});
    expect(defaultContextStore({ default: { module: custom } })).toEqual({
      name: 'default',
      module: 'custom',
      persistent: true,
    });
  });
});
