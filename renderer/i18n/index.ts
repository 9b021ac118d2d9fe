/// <reference types="vite/client" />
/**
 * The UI's languages (docs/explorer.md, "Languages"): i18next with react-i18next. Every
 * string a person reads comes from `locales/<language>/<namespace>.json`; each feature owns
 * its namespace, and every language has every key of English (test/renderer/i18n.test.ts).
 * The language follows the browser until the user picks one in Settings (kept in
 * localStorage); sizes, numbers and dates are formatted by `Intl` in that language.
 */
import i18next, { type Resource } from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'cs', name: 'Čeština' },
  { code: 'es', name: 'Español' },
  { code: 'ja', name: '日本語' },
  { code: 'nb', name: 'Norsk bokmål' },
] as const;

export type Language = (typeof LANGUAGES)[number]['code'];

export const LANGUAGE_STORAGE_ITEM = 'nimbus.language';

// Every namespace file of every language, bundled: the UI never fetches a translation.
const files = import.meta.glob<{ default: Record<string, unknown> }>('./locales/*/*.json', { eager: true });

export function loadResources(): Resource {
  const resources: Resource = {};
  for (const [file, module] of Object.entries(files)) {
    const match = /\.\/locales\/([^/]+)\/([^/]+)\.json$/.exec(file);
    if (!match) continue;
    const [, language, namespace] = match;
    (resources[language] ??= {})[namespace] = module.default;
  }
  return resources;
}

export const NAMESPACES = [...new Set(Object.keys(files).map((f) => /\/([^/]+)\.json$/.exec(f)![1]))];

/** The supported language closest to one of the browser's (`nb-NO`, `no` and `nn` read as Norwegian Bokmål). */
export function matchLanguage(wanted: readonly string[]): Language {
  for (const tag of wanted) {
    const base = tag.toLowerCase().split('-')[0];
    const code = base === 'no' || base === 'nn' ? 'nb' : base;
    if (LANGUAGES.some((l) => l.code === code)) return code as Language;
  }
  return 'en';
}

function storedLanguage(): Language | null {
  try {
    const stored = globalThis.localStorage?.getItem(LANGUAGE_STORAGE_ITEM);
    return stored && LANGUAGES.some((l) => l.code === stored) ? (stored as Language) : null;
  } catch {
    return null;
  }
}

/** The language to start in: the one picked in Settings, else the browser's. */
export function initialLanguage(): Language {
  return storedLanguage() ?? matchLanguage(globalThis.navigator?.languages ?? [globalThis.navigator?.language ?? 'en']);
}

/** Switches the UI's language now and remembers it (Settings). */
export async function chooseLanguage(code: Language): Promise<void> {
  try {
    globalThis.localStorage?.setItem(LANGUAGE_STORAGE_ITEM, code);
  } catch {
    // storage disabled: the choice lasts for this page
  }
  await i18next.changeLanguage(code);
}

/** The current language, for `Intl` (renderer/lib/format.ts). */
export const currentLanguage = (): Language => (i18next.resolvedLanguage ?? i18next.language ?? 'en') as Language;

void i18next.use(initReactI18next).init({
  resources: loadResources(),
  lng: initialLanguage(),
  fallbackLng: 'en',
  supportedLngs: LANGUAGES.map((l) => l.code),
  ns: NAMESPACES,
  defaultNS: 'common',
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
  initAsync: false,
});

// <html lang> follows, for screen readers and the browser's own hyphenation and fonts.
const setLang = (lng: string) => {
  if (typeof document !== 'undefined') document.documentElement.lang = lng;
};
setLang(currentLanguage());
i18next.on('languageChanged', setLang);

export default i18next;
