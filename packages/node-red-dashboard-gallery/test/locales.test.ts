import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogProblems, translatedLanguages } from '../../../scripts/message-catalogs.mjs';
import { pickLanguage, textsFor } from '../src/ui/texts.js';
import { packageRoot } from './harness/dashboard-red.js';

// One catalog per language serves the editor (labels, tips, status, help) and the widget (key
// `widget`, bundled into the UMD file): en-US is the reference (scripts/message-catalogs.mjs).
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

describe("the widget's language: the first of the browser's languages it has", () => {
  it.each([
    [['zh-TW'], 'zh-TW'],
    [['zh-HK', 'en-US'], 'zh-TW'],
    [['zh-Hant-TW'], 'zh-TW'],
    [['fr-FR', 'zh-TW', 'en'], 'zh-TW'],
    [['en-GB', 'zh-TW'], 'en-US'],
    [['zh-CN'], 'en-US'],
    [['ja'], 'en-US'],
    [[], 'en-US'],
  ])('%j → %s', (preferred, expected) => {
    expect(pickLanguage(preferred)).toBe(expected);
  });

  it('fills placeholders and reads nested keys', () => {
    expect(textsFor('en-US')('count', { shown: 3, total: 12 })).toBe('3 of 12');
    expect(textsFor('zh-TW')('count', { shown: 3, total: 12 })).toBe('3 / 12');
    expect(textsFor('zh-TW')('details.camera')).toBe('攝影機');
    expect(textsFor('en-US')('taskId', { id: 7 })).toBe('task #7');
  });
});

describe('zh-TW help page', () => {
  it('has no line break between two Chinese characters (a browser shows it as a stray space)', () => {
    const cjk = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/;
    const lines = readFileSync(join(LOCALES, 'zh-TW', 'ui-observation-gallery.html'), 'utf8').split('\n');
    const breaks = lines.filter((line, index) => {
      const next = lines[index + 1];
      if (next === undefined || /<\/(dd|p|dt|li|h3|ul|dl)>\s*$/.test(line)) return false;
      if (/^\s*<\/?(dt|dd|p|h3|dl|ul|li|script)\b/.test(next)) return false;
      const before = line.trimEnd().replace(/(<[^>]+>)+$/, '');
      const after = next.trim().replace(/^(<[^>]+>)+/, '');
      return cjk.test(before.slice(-1)) && cjk.test(after.charAt(0));
    });
    expect(breaks).toEqual([]);
  });
});
