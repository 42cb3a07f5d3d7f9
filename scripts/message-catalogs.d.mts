/** The languages besides en-US in a Node-RED package's `locales` folder. */
export function translatedLanguages(localesDir: string): string[];
/** Every difference of `language`'s catalogs and help pages from en-US, one readable line each. */
export function catalogProblems(localesDir: string, language: string): string[];
