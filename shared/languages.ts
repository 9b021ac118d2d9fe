/**
 * The five languages Nimbus speaks (the explorer's, renderer/i18n), and the one rule that picks
 * among them from what a reader's software names: a browser's Accept-Language (the daemon's
 * pages and mails) or the operating system's locale (the Electron menus). Pure, so the daemon
 * and the shell share it rather than each keeping a copy.
 */

export const UI_LANGUAGES = ['en', 'cs', 'es', 'ja', 'nb'] as const;

export type UiLanguage = (typeof UI_LANGUAGES)[number];

/** Norwegian also comes as `no` and Nynorsk `nn`: Bokmål is the nearest of the five. */
const ALIASES: Record<string, UiLanguage> = { no: 'nb', nn: 'nb' };

function supported(primary: string): UiLanguage | undefined {
  return (UI_LANGUAGES as readonly string[]).includes(primary) ? (primary as UiLanguage) : ALIASES[primary];
}

/**
 * The first language (by q, then by order) of an Accept-Language header that Nimbus speaks;
 * English when it names none. A single locale (`cs`, `en-US`, `nb_NO`) reads as a header of one.
 */
export function preferredLanguage(acceptLanguage: string): UiLanguage {
  const ranked = acceptLanguage
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
      return { primary: tag.split(/[-_]/)[0], q: q ? Number(q[1]) : 1, i };
    })
    .filter((l) => l.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { primary } of ranked) {
    const lang = supported(primary);
    if (lang) return lang;
  }
  return 'en';
}
