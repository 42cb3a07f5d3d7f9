import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from './harness/node-red.js';

// en-US is the reference catalog; every other language must offer exactly the same messages
// (a missing key shows the raw key in the editor, an extra one is a stale leftover) with the
// same __placeholders__, and the same help pages with the same sections and properties.
const LOCALES = join(packageRoot, 'src', 'nodes', 'locales');
const REFERENCE = 'en-US';
const languages = readdirSync(LOCALES).filter((name) => name !== REFERENCE);

type Catalog = { [key: string]: string | Catalog };

function flatten(catalog: Catalog, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(catalog)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [inner, text] of flatten(value, path)) out.set(inner, text);
  }
  return out;
}

function files(language: string, ext: string): string[] {
  return readdirSync(join(LOCALES, language))
    .filter((name) => name.endsWith(ext))
    .sort();
}

const placeholders = (text: string) => [...text.matchAll(/__\w+__/g)].map((m) => m[0]).sort();

/** What a help page must keep across languages: its node, sections, properties and their types. */
function helpShape(html: string) {
  return {
    nodes: [...html.matchAll(/data-help-name="([^"]+)"/g)].map((m) => m[1]),
    sections: [...html.matchAll(/<h3>/g)].length,
    properties: [...html.matchAll(/<dt(?: class="optional")?>/g)].length,
    types: [...html.matchAll(/<span class="property-type">([^<]*)<\/span>/g)].map((m) => m[1]),
    codes: [...html.matchAll(/<code>([^<]*)<\/code>/g)].length > 0,
  };
}

describe('message catalogs and help: every language matches en-US', () => {
  it('has a second language to check (zh-TW)', () => {
    expect(languages).toContain('zh-TW');
  });

  for (const language of languages) {
    it(`${language}: the same message files, keys and placeholders as en-US`, () => {
      expect(files(language, '.json')).toEqual(files(REFERENCE, '.json'));
      for (const file of files(REFERENCE, '.json')) {
        const reference = flatten(JSON.parse(readFileSync(join(LOCALES, REFERENCE, file), 'utf8')));
        const translated = flatten(JSON.parse(readFileSync(join(LOCALES, language, file), 'utf8')));
        expect([...translated.keys()].sort(), file).toEqual([...reference.keys()].sort());
        for (const [key, text] of reference) {
          const other = translated.get(key) ?? '';
          expect(placeholders(other), `${file} ${key}`).toEqual(placeholders(text));
          expect(other.trim(), `${file} ${key} is empty`).not.toBe('');
        }
      }
    });

    it(`${language}: the same help pages, sections and message properties as en-US`, () => {
      expect(files(language, '.html')).toEqual(files(REFERENCE, '.html'));
      for (const file of files(REFERENCE, '.html')) {
        const reference = helpShape(readFileSync(join(LOCALES, REFERENCE, file), 'utf8'));
        const translated = helpShape(readFileSync(join(LOCALES, language, file), 'utf8'));
        expect(translated, file).toEqual(reference);
      }
    });
  }

  it('zh-TW is written in Traditional characters (none of the common Simplified-only forms)', () => {
    // Simplified forms of characters these texts use often; any of them means a mainland
    // translation slipped in (e.g. 设置 for 設定, 连接 for 連線, 服务器 for 伺服器).
    const simplified = /[设务线连户据载们这时间择视频错误权证码页录]/u;
    for (const file of readdirSync(join(LOCALES, 'zh-TW'))) {
      const text = readFileSync(join(LOCALES, 'zh-TW', file), 'utf8');
      expect(text.match(simplified)?.[0], file).toBeUndefined();
    }
  });
});
