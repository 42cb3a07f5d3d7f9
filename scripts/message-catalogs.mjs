// The checks every Node-RED package's tests run on its message catalogs and help pages
// (src/nodes/locales/<language>/): en-US is the reference; every other language must offer
// exactly the same messages (a missing key shows the raw key in the editor, an extra one is a
// stale leftover) with the same __placeholders__, and the same help pages with the same
// sections and properties. zh-TW must be written in Traditional characters. Every problem is
// one readable line.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REFERENCE = 'en-US';

/** Simplified forms of characters these texts use often; any of them means a mainland translation
 * slipped in (e.g. 设置 for 設定, 连接 for 連線, 服务器 for 伺服器). */
const SIMPLIFIED = /[设务线连户据载们这时间择视频错误权证码页录]/u;

function flatten(catalog, prefix = '') {
  const out = new Map();
  for (const [key, value] of Object.entries(catalog)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [inner, text] of flatten(value, path)) out.set(inner, text);
  }
  return out;
}

const files = (dir, ext) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(ext))
    .sort();
const placeholders = (text) => [...text.matchAll(/__\w+__/g)].map((match) => match[0]).sort();
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** What a help page must keep across languages: its node, sections, properties and their types. */
function helpShape(html) {
  return {
    nodes: [...html.matchAll(/data-help-name="([^"]+)"/g)].map((match) => match[1]),
    sections: [...html.matchAll(/<h3>/g)].length,
    properties: [...html.matchAll(/<dt(?: class="optional")?>/g)].length,
    types: [...html.matchAll(/<span class="property-type">([^<]*)<\/span>/g)].map((match) => match[1]),
    codes: [...html.matchAll(/<code>([^<]*)<\/code>/g)].length > 0,
  };
}

/** The languages besides en-US under `localesDir`. */
export function translatedLanguages(localesDir) {
  return readdirSync(localesDir).filter((name) => name !== REFERENCE);
}

/** Every difference of `language` from en-US (empty when it matches). */
export function catalogProblems(localesDir, language) {
  const problems = [];
  const reference = join(localesDir, REFERENCE);
  const translated = join(localesDir, language);
  for (const ext of ['.json', '.html']) {
    if (!same(files(translated, ext), files(reference, ext)))
      problems.push(
        `${language}: ${ext} files ${files(translated, ext)} differ from en-US's ${files(reference, ext)}`,
      );
  }
  for (const file of files(reference, '.json')) {
    const english = flatten(JSON.parse(readFileSync(join(reference, file), 'utf8')));
    let other;
    try {
      other = flatten(JSON.parse(readFileSync(join(translated, file), 'utf8')));
    } catch (error) {
      problems.push(`${language}/${file}: ${error.message}`);
      continue;
    }
    for (const key of english.keys())
      if (!other.has(key)) problems.push(`${language}/${file}: ${key} is missing`);
    for (const key of other.keys())
      if (!english.has(key)) problems.push(`${language}/${file}: ${key} is not in en-US`);
    for (const [key, text] of [...english, ...other]) {
      // Node-RED's RED._ fills __name__ only: a {{name}} would reach the user as written.
      if (/\{\{\s*\w+\s*\}\}/.test(text))
        problems.push(`${file}: ${key} uses a {{ }} placeholder; Node-RED fills __name__ only`);
    }
    for (const [key, text] of english) {
      const translation = other.get(key);
      if (translation === undefined) continue;
      if (translation.trim() === '') problems.push(`${language}/${file}: ${key} is empty`);
      if (!same(placeholders(translation), placeholders(text)))
        problems.push(
          `${language}/${file}: ${key} has placeholders ${placeholders(translation)}, en-US ${placeholders(text)}`,
        );
    }
  }
  for (const file of files(reference, '.html')) {
    const english = helpShape(readFileSync(join(reference, file), 'utf8'));
    let other;
    try {
      other = helpShape(readFileSync(join(translated, file), 'utf8'));
    } catch (error) {
      problems.push(`${language}/${file}: ${error.message}`);
      continue;
    }
    if (!same(other, english))
      problems.push(
        `${language}/${file}: help shape ${JSON.stringify(other)}, en-US ${JSON.stringify(english)}`,
      );
  }
  if (language === 'zh-TW') {
    for (const file of readdirSync(translated)) {
      const found = readFileSync(join(translated, file), 'utf8').match(SIMPLIFIED)?.[0];
      if (found) problems.push(`zh-TW/${file}: Simplified character ${found}`);
    }
  }
  return problems;
}
