/// <reference types="vite/client" />
/**
 * The UI's languages (docs/explorer.md, "Languages"): i18next with react-i18next. Every
 * string a person reads comes from `locales/<language>/<namespace>.json`; each feature owns
 * its namespace, and every language has every key of English (test/renderer/i18n.test.ts).
 * The language follows the browser until the user picks one in Settings (kept in
 * localStorage); sizes, numbers and dates are formatted by `Intl` in that language.
 *
 * Only the language in use is loaded (docs/explorer.md, "How the UI is served"): each
 * language's files are one chunk of the build (`languages/<code>.ts`), fetched when the page
 * starts in it or switches to it. The module waits for it at its top level, so nothing renders
 * a string before the strings are there.
 */
import i18next, { type BackendModule, type Resource, type ResourceLanguage } from 'i18next';
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

/**
 * Each language's strings: `languages/<code>.ts` bundles its namespace files (one chunk of the
 * build, so one request), imported only when the UI starts in it or switches to it.
 */
const languageFiles = import.meta.glob<Record<string, ResourceLanguage>>('./languages/*.ts', { import: 'default' });

const loading = new Map<string, Promise<ResourceLanguage>>();

/** One language's strings by namespace (`../locales/cs/admin.json` → `admin`); loaded once. */
function loadLanguage(language: string): Promise<ResourceLanguage> {
  let strings = loading.get(language);
  if (!strings) {
    const load = languageFiles[`./languages/${language}.ts`];
    if (!load) return Promise.reject(new Error(`No strings for ${language}`));
    strings = load().then((files) =>
      Object.fromEntries(Object.entries(files).map(([file, namespace]) => [/([^/]+)\.json$/.exec(file)![1], namespace])),
    );
    // A failed load (the page outlived its build) is tried again next time, not remembered.
    strings.catch(() => loading.delete(language));
    loading.set(language, strings);
  }
  return strings;
}

/** Every language's strings, for the tests that compare them (the UI itself never needs them all). */
export async function loadAllResources(): Promise<Resource> {
  const entries = await Promise.all(LANGUAGES.map(async ({ code }) => [code, await loadLanguage(code)] as const));
  return Object.fromEntries(entries);
}

/**
 * i18next's backend: it asks for a language's namespaces when the UI starts in it or changes to
 * it (changeLanguage resolves once they are here), never for one that is not used.
 */
const lazyLocales: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, namespace, callback) {
    loadLanguage(language).then(
      (strings) => callback(null, strings[namespace] ?? {}),
      (error: Error) => callback(error, false),
    );
  },
};

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

/**
 * Switches the UI's language once its strings are loaded, and remembers it (Settings). If they
 * cannot be loaded (the daemon was updated under an open page, so this build's chunk is gone),
 * the page stays in its language rather than showing keys; the choice applies at the next load.
 */
export async function chooseLanguage(code: Language): Promise<void> {
  try {
    globalThis.localStorage?.setItem(LANGUAGE_STORAGE_ITEM, code);
  } catch {
    // storage disabled: the choice lasts for this page
  }
  await i18next.loadLanguages(code);
  if (!i18next.hasResourceBundle(code, 'common')) throw new Error(`The ${code} strings could not be loaded; reload the page`);
  await i18next.changeLanguage(code);
}

/** The current language, for `Intl` (renderer/lib/format.ts). */
export const currentLanguage = (): Language => (i18next.resolvedLanguage ?? i18next.language ?? 'en') as Language;

const startLanguage = initialLanguage();
// Every language has the same namespaces (test/renderer/i18n.test.ts): the first one's are the list.
const namespaces = Object.keys(await loadLanguage(startLanguage));

await i18next
  .use(lazyLocales)
  .use(initReactI18next)
  .init({
    lng: startLanguage,
    // No fallback language: it would be loaded beside the one in use, and every language has
    // every string of English (test/renderer/i18n.test.ts), so there is nothing to fall back on.
    fallbackLng: false,
    supportedLngs: LANGUAGES.map((l) => l.code),
    load: 'currentOnly',
    ns: namespaces,
    defaultNS: 'common',
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
  });

// <html lang> follows, for screen readers and the browser's own hyphenation and fonts.
const setLang = (lng: string) => {
  if (typeof document !== 'undefined') document.documentElement.lang = lng;
};
setLang(currentLanguage());
i18next.on('languageChanged', setLang);

export default i18next;
