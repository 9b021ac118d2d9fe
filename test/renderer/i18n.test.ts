/**
 * Every language has every string of English (and nothing English lacks), with the same
 * {{placeholders}}; every `t('ns:key')` literal in the renderer names a string that exists.
 */
import { describe, expect, it } from 'vitest';
import i18next, { LANGUAGES, loadAllResources, matchLanguage } from '../../renderer/i18n';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(name, value);
    else for (const [k, v] of flatten(value, name)) out.set(k, v);
  }
  return out;
}

const resources = await loadAllResources();
// The renderer's sources as text (Vite's glob, so the test needs no Node APIs in the renderer's project).
const SOURCES = import.meta.glob<string>(['../../renderer/**/*.{ts,tsx}', '!../../renderer/dist/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
});
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort();

describe('translations', () => {
  const english = resources.en as Record<string, Tree>;
  for (const { code } of LANGUAGES.filter((l) => l.code !== 'en')) {
    it(`${code} has exactly English's strings, with the same placeholders`, () => {
      const other = (resources[code] ?? {}) as Record<string, Tree>;
      expect(Object.keys(other).sort()).toEqual(Object.keys(english).sort());
      for (const ns of Object.keys(english)) {
        const en = flatten(english[ns]);
        const tr = flatten(other[ns] ?? {});
        // i18next's plural suffixes differ by language (Czech has _few, Japanese only _other).
        const base = (k: string) => k.replace(/_(zero|one|two|few|many|other)$/, '');
        expect([...new Set([...tr.keys()].map(base))].sort(), `${code}/${ns}`).toEqual([...new Set([...en.keys()].map(base))].sort());
        for (const [key, text] of tr) {
          const source = en.get(key) ?? en.get(`${base(key)}_other`) ?? en.get(base(key));
          if (source !== undefined) {
            const allowed = new Set(placeholders(source).concat('count'));
            for (const name of placeholders(text)) expect(allowed.has(name), `${code}/${ns}:${key} uses {{${name}}}`).toBe(true);
          }
        }
      }
    });
  }

  it('every t("ns:key") literal in the renderer exists in English', () => {
    const missing: string[] = [];
    expect(Object.keys(SOURCES).length).toBeGreaterThan(50);
    for (const [file, source] of Object.entries(SOURCES)) {
      // Comments may show a key as an example.
      const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      for (const m of text.matchAll(/\bt\(\s*'([a-zA-Z]+):([\w.]+)'/g)) {
        const [, ns, key] = m;
        const en = flatten((english[ns] ?? {}) as Tree);
        if (!en.has(key) && !en.has(`${key}_other`) && !en.has(`${key}_one`)) missing.push(`${file}: ${ns}:${key}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('follows the browser, Norwegian included', async () => {
    expect(matchLanguage(['cs-CZ', 'en'])).toBe('cs');
    expect(matchLanguage(['nb-NO'])).toBe('nb');
    expect(matchLanguage(['no'])).toBe('nb');
    expect(matchLanguage(['fr-FR', 'es-MX'])).toBe('es');
    expect(matchLanguage(['fr'])).toBe('en');
    // Only the language in use is loaded (renderer/i18n/index.ts): another one is loaded first.
    await i18next.loadLanguages('cs');
    expect(i18next.t('common:cancel', { lng: 'cs' })).toBe('Zrušit');
  });
});
