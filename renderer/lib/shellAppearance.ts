/**
 * Tells the desktop shell the explorer's language and theme, so that its menus and tray speak
 * the one (main/menu-words.ts) and its window frame and first paint follow the other
 * (Electron's nativeTheme); both follow the operating system until the explorer says. In a
 * plain browser there is no shell and this does nothing.
 */
import i18next from 'i18next';
import { getBridge } from '../api/bridge';
import { currentTheme, onThemeChange } from './theme';

export function followAppearanceInShell(): void {
  const bridge = getBridge();
  if (!bridge) return;
  // A refusal (a language the shell does not know) leaves the shell as it was.
  const tellLanguage = (language: string | undefined) => {
    const primary = language?.split('-')[0];
    if (primary) bridge.setLanguage(primary).catch(() => undefined);
  };
  const tellTheme = () => void bridge.setTheme(currentTheme()).catch(() => undefined);
  tellLanguage(i18next.resolvedLanguage ?? i18next.language);
  tellTheme();
  i18next.on('languageChanged', tellLanguage);
  onThemeChange(tellTheme);
}
