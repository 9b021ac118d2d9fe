/**
 * Languages are loaded on demand (renderer/i18n/index.ts; docs/explorer.md, "How the UI is
 * served"): the page starts with the strings of its own language only, and another language's
 * arrive when the UI switches to it, before any string changes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import i18next, { LANGUAGES, chooseLanguage } from '../../renderer/i18n';

const loaded = () => LANGUAGES.map((l) => l.code).filter((code) => i18next.hasResourceBundle(code, 'common'));

describe('languages on demand', () => {
  afterAll(() => chooseLanguage('en'));

  it('starts with its own language only, every namespace of it', () => {
    // jsdom's browser speaks en-US and nothing is stored: the page starts in English.
    expect(i18next.language).toBe('en');
    expect(loaded()).toEqual(['en']);
    expect(i18next.t('common:cancel')).toBe('Cancel');
    expect(i18next.t('explorer:toolbar.upload')).toBe('Upload');
  });

  it('loads Czech when the UI switches to it, and only Czech', async () => {
    const switched = chooseLanguage('cs');
    // Nothing changes before the strings are here: no key is ever shown.
    expect(i18next.language).toBe('en');
    await switched;
    expect(i18next.language).toBe('cs');
    expect(document.documentElement.lang).toBe('cs');
    expect(loaded()).toEqual(['en', 'cs']);
    expect(i18next.t('common:cancel')).toBe('Zrušit');
    expect(i18next.t('explorer:toolbar.upload')).toBe('Nahrát');
  });
});
