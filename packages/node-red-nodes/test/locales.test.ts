import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogProblems, translatedLanguages } from '../../../scripts/message-catalogs.mjs';
import { packageRoot } from './harness/node-red.js';

// en-US is the reference catalog; every other language must offer exactly the same messages,
// placeholders and help pages (scripts/message-catalogs.mjs says what is checked).
const LOCALES = join(packageRoot, 'src', 'nodes', 'locales');
const languages = translatedLanguages(LOCALES);

describe('message catalogs and help: every language matches en-US', () => {
  it('has a second language to check (zh-TW)', () => {
    expect(languages).toContain('zh-TW');
  });

  it.each(languages)('%s: the same messages, placeholders and help pages as en-US', (language) => {
    expect(catalogProblems(LOCALES, language)).toEqual([]);
  });
});

/**
 * Places in a Chinese help page where a line break falls between two Chinese characters: a
 * browser renders that break as a space, a stray one in Chinese text. A break next to Latin text,
 * a tag of its own line or between block elements is fine.
 */
function cjkLineBreaks(html: string): string[] {
  const cjk = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/;
  const blockStart = /^\s*<\/?(dt|dd|p|h3|dl|ul|li|script)\b/;
  const blockEnd = /<\/(dd|p|dt|li|h3|ul|dl)>\s*$|<(dl|ul)[^>]*>\s*$/;
  const lines = html.split('\n');
  const found: string[] = [];
  lines.forEach((line, index) => {
    const next = lines[index + 1];
    if (next === undefined || blockEnd.test(line) || blockStart.test(next)) return;
    const before = line.trimEnd().replace(/(<[^>]+>)+$/, '');
    const after = next.trim().replace(/^(<[^>]+>)+/, '');
    if (cjk.test(before.slice(-1)) && cjk.test(after.charAt(0)))
      found.push(`line ${index + 1}: …${before.slice(-8)}`);
  });
  return found;
}

describe('zh-TW help pages', () => {
  // The events node's page is kept by its own change; these are the query, server and task status pages.
  it.each(['observation-query', 'observation-server', 'observation-task-watch'])(
    '%s: no line break between two Chinese characters (it shows as a stray space)',
    (name) => {
      const html = readFileSync(join(LOCALES, 'zh-TW', `${name}.html`), 'utf8');
      expect(cjkLineBreaks(html)).toEqual([]);
    },
  );
});
