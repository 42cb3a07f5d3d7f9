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
