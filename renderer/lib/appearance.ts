/**
 * Appearance (Settings): the theme and the language, remembered per account in this browser's
 * localStorage (`nimbus.appearance.<account>`), so two people who share a browser each get
 * their own. Per browser because the daemon keeps no UI preferences, and these are about the
 * screen in front of the person as much as about them.
 *
 * Before anyone is signed in, and for a reload's first frame, the page shows the appearance
 * last in effect in this browser (`nimbus.appearance` for the theme, `nimbus.language` for the
 * language): who is signed in is known only once the daemon answers, and showing the last
 * one's appearance until then means a reload never flashes another theme.
 */
import type { Me } from '../../shared/types';
import { LANGUAGES, chooseLanguage, currentLanguage, type Language } from '../i18n';
import { LAST_APPEARANCE_ITEM, applyTheme, isTheme, type Theme } from './theme';

/** What an account chose (enterAccount says what stands for what it did not). */
interface Chosen {
  theme?: Theme;
  language?: Language;
}

/** Whose appearance it is: a user by name; every session with a key and no user (the admin key) shares `key`. */
export const accountOf = (me: Me): string => (me.user ? `user.${me.user.username}` : 'key');

const itemOf = (account: string) => `${LAST_APPEARANCE_ITEM}.${account}`;
const isLanguage = (value: unknown): value is Language => LANGUAGES.some((language) => language.code === value);

function read(item: string): string | null {
  try {
    return globalThis.localStorage?.getItem(item) ?? null;
  } catch {
    return null; // storage disabled: nothing was kept
  }
}

function write(item: string, value: string): void {
  try {
    globalThis.localStorage?.setItem(item, value);
  } catch {
    // storage disabled: the choice lasts for this page
  }
}

/** What `account` chose in this browser, dropping whatever is not a theme or a language (an older or edited entry). */
function chosenBy(account: string): Chosen | null {
  try {
    const stored = JSON.parse(read(itemOf(account)) ?? 'null') as Record<string, unknown> | null;
    if (stored === null || typeof stored !== 'object') return null;
    return {
      ...(isTheme(stored.theme) ? { theme: stored.theme } : {}),
      ...(isLanguage(stored.language) ? { language: stored.language } : {}),
    };
  } catch {
    return null;
  }
}

let account: string | null = null;

/**
 * `account` is signed in: its own theme and language apply at once, and become this browser's
 * last appearance. Where it chose none, the theme is System (the device's) and the language the
 * one the page is in: the browser's, or the last chosen on this browser, as before appearances
 * were per account (the radios have no "the browser's" to go back to).
 */
export async function enterAccount(name: string): Promise<void> {
  account = name;
  const chosen = chosenBy(name) ?? {};
  const theme = chosen.theme ?? 'system';
  applyTheme(theme);
  write(LAST_APPEARANCE_ITEM, JSON.stringify({ theme }));
  if (chosen.language && chosen.language !== currentLanguage()) await chooseLanguage(chosen.language);
}

/** Nobody is signed in now: the page keeps the appearance it has, as the sign-in page's. */
export function leaveAccount(name: string): void {
  if (account === name) account = null;
}

function remember(choice: Chosen): void {
  if (account !== null) write(itemOf(account), JSON.stringify({ ...chosenBy(account), ...choice }));
}

/** The signed-in person chose `theme`: it applies at once and is kept for them. */
export function chooseTheme(theme: Theme): void {
  applyTheme(theme);
  remember({ theme });
  write(LAST_APPEARANCE_ITEM, JSON.stringify({ theme }));
}

/** The signed-in person chose `language`: kept for them, applied once its strings are here (renderer/i18n). */
export function chooseAccountLanguage(language: Language): Promise<void> {
  remember({ language });
  return chooseLanguage(language);
}
