import english from '../nodes/locales/en-US/ui-observation-gallery.json';
import traditionalChinese from '../nodes/locales/zh-TW/ui-observation-gallery.json';

/**
 * The widget's texts, from the same message catalogs as the editor (locales/<language>, key
 * `widget`). Dashboard 2 has no language setting of its own, so the widget follows the browser.
 */
type Catalog = (typeof english)['ui-observation-gallery']['widget'];

const catalogs = {
  'en-US': english['ui-observation-gallery'].widget,
  'zh-TW': traditionalChinese['ui-observation-gallery'].widget,
} satisfies Record<string, Catalog>;

export type Language = keyof typeof catalogs;

/** A key of the widget catalog, `details.` keys included. */
export type TextKey = Exclude<keyof Catalog, 'details'> | `details.${keyof Catalog['details']}`;

export type Texts = (key: TextKey, substitutions?: Record<string, string | number>) => string;

/**
 * The first of the browser's languages the widget has: Traditional Chinese for zh-TW, zh-HK,
 * zh-MO and any zh-Hant; English for any other en; English when none matches.
 */
export function pickLanguage(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const lower = tag.toLowerCase();
    if (/^zh-(tw|hk|mo|hant)\b/.test(lower)) return 'zh-TW';
    if (lower === 'en' || lower.startsWith('en-')) return 'en-US';
  }
  return 'en-US';
}

/** Looks texts up in one language; `__name__` placeholders as in Node-RED's catalogs. */
export function textsFor(language: Language): Texts {
  const catalog = catalogs[language];
  return (key, substitutions = {}) => {
    const [group, name] = key.split('.') as [string, string | undefined];
    const entry =
      name === undefined
        ? catalog[group as keyof Catalog]
        : catalog.details[name as keyof Catalog['details']];
    const text = typeof entry === 'string' ? entry : key;
    return text.replace(/__(\w+)__/g, (match, placeholder: string) =>
      placeholder in substitutions ? String(substitutions[placeholder]) : match,
    );
  };
}

/** The language of the browser showing the dashboard, among the widget's. */
export function browserLanguage(): Language {
  return pickLanguage(typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]));
}
