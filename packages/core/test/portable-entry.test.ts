import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { createUndiciTransport } from '../src/index.js';
import { systemClock } from '../src/node/system-clock.js';
import { createClient as createPortableClient, ValidationError } from '../src/portable.js';

const srcDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Every source file the portable entry reaches through its (non-type) relative imports. */
function reachableFrom(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^'";]*?from\s+'([^']+)'/gm)) {
      const target = match[1] ?? '';
      if (target.startsWith('.')) visit(resolve(dirname(file), target.replace(/\.js$/, '.ts')));
    }
  };
  visit(entry);
  return seen;
}

describe('the portable entry needs no Node built-in, library or global timer', () => {
  const files = reachableFrom(join(srcDir, 'portable.ts'));

  test('it reaches the client, realtime and annotation code', () => {
    const names = [...files.keys()].map((file) => file.slice(srcDir.length + 1));
    expect(names).toEqual(
      expect.arrayContaining([
        'client/build-client.ts',
        'realtime/subscription.ts',
        'annotate/png-codec.ts',
        'http/deadline.ts',
      ]),
    );
    expect(names.filter((name) => name.startsWith('node/'))).toEqual([]);
  });

  test('no file it reaches imports a package other than the pure-JS codecs', () => {
    const imports = new Set<string>();
    for (const text of files.values()) {
      for (const match of text.matchAll(/^import\s+(?!type\b)[^'";]*?from\s+'([^'.][^']*)'/gm))
        imports.add(match[1] ?? '');
    }
    expect([...imports].sort()).toEqual(['fflate/browser', 'jpeg-js']);
  });

  test('no file it reaches calls a global timer or reads process', () => {
    const offenders: string[] = [];
    for (const [file, text] of files) {
      const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
      for (const name of [
        'setTimeout',
        'clearTimeout',
        'setInterval',
        'setImmediate',
        'process',
        'globalThis',
      ]) {
        if (new RegExp(`(?<![.\\w])${name}\\b`).test(code))
          offenders.push(`${file.slice(srcDir.length + 1)}: ${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe('the portable createClient asks the host for its ports', () => {
  const transport = createUndiciTransport();

  test('without a transport it names the missing option', () => {
    const error = (() => {
      try {
        createPortableClient({ url: 'http://127.0.0.1:1', auth: { token: 't' }, clock: systemClock });
      } catch (caught) {
        return caught;
      }
    })();
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).message).toMatch(/transport/);
  });

  test('without a clock it names the missing option', () => {
    expect(() =>
      createPortableClient({ url: 'http://127.0.0.1:1', auth: { token: 't' }, transport }),
    ).toThrow(/clock/);
  });

  test("TLS options for the runtime's WebSocket are refused with the workaround", async () => {
    const client = createPortableClient({
      url: 'https://127.0.0.1:1',
      auth: { token: 't' },
      transport,
      clock: systemClock,
      tls: { rejectUnauthorized: false },
    });
    expect(() => client.events.subscribe('all', { onEvent: () => undefined })).toThrow(
      /tls.*NODE_EXTRA_CA_CERTS/s,
    );
    await client.close();
    await transport.close?.();
  });
});
