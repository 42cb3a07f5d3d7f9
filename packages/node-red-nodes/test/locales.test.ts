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
