/**
 * The application menu and the tray speak the system's language (issue 29, item 4): Electron's
 * locale picks one of the explorer's five languages, English when it is none of them; items with
 * a role are Electron's to word.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { UI_LANGUAGES } from '../../shared/languages.js';

vi.mock('electron', () => import('./fakeElectron.js'));

const electron = await import('./fakeElectron.js');
const { setupAppMenu } = await import('../../main/menu.js');
const { setupTray } = await import('../../main/tray.js');
const { MENU_WORDS, menuWords } = await import('../../main/menu-words.js');

const appActions = () => ({
  openStorageFolder: vi.fn(),
  openLogFolder: vi.fn(),
  openInBrowser: vi.fn(),
  copyApiKey: vi.fn(),
  quit: vi.fn(),
});
const trayActions = () => ({ ...appActions(), openWindow: vi.fn() });

type FakeMenu = InstanceType<typeof electron.FakeMenu>;

/** Every label of a menu, submenus included. */
function labels(items: MenuItemConstructorOptions[]): string[] {
  return items.flatMap((item) => [...(item.label ? [item.label] : []), ...(Array.isArray(item.submenu) ? labels(item.submenu) : [])]);
}

function installedMenu(): string[] {
  const menu = electron.Menu.setApplicationMenu.mock.calls.at(-1)![0] as FakeMenu;
  return labels(menu.template);
}

beforeEach(() => {
  vi.clearAllMocks();
  electron.Tray.instances.length = 0;
});

describe('the menus in the system’s language', () => {
  it('words the application menu in Czech on a Czech system, Electron’s locale read once the app is ready', () => {
    electron.app.getLocale.mockReturnValueOnce('cs');
    setupAppMenu(appActions(), 'linux');
    expect(installedMenu()).toEqual([
      'Soubor',
      'Otevřít složku úložiště',
      'Otevřít složku protokolů',
      'Otevřít v prohlížeči',
      'Kopírovat klíč API',
      'Zavřít okno',
      'Ukončit',
      'Úpravy',
      'Zobrazení',
      'Okno',
      'Nápověda',
    ]);
  });

  it('words the macOS app menu’s Quit in the system’s language', () => {
    setupAppMenu(appActions(), 'darwin', 'nb-NO');
    expect(installedMenu()).toContain('Avslutt Nimbus');
    expect(installedMenu()).toContain('Åpne Nimbus i nettleseren');
  });

  it('words the tray’s menu and tooltip in Czech on a Czech system', () => {
    electron.app.getLocale.mockReturnValueOnce('cs-CZ');
    setupTray(trayActions(), 'http://127.0.0.1:7878', 'linux');
    const tray = electron.Tray.instances[0];
    expect(labels(tray.contextMenu!.template)).toEqual([
      'Otevřít Nimbus',
      'Otevřít složku úložiště',
      'Otevřít složku protokolů',
      'Kopírovat klíč API',
      'Ukončit',
    ]);
    expect(tray.toolTip).toBe('Nimbus — běží na http://127.0.0.1:7878');
  });

  it('stays English on a system in a language Nimbus does not speak', () => {
    setupAppMenu(appActions(), 'linux', 'fr-FR');
    expect(installedMenu()).toEqual(expect.arrayContaining(['File', 'Open Storage Folder', 'Quit', 'Help']));
    expect(menuWords('de')).toBe(MENU_WORDS.en);
  });

  it.each(UI_LANGUAGES.filter((lang) => lang !== 'en'))('%s has every label of English, each its own', (lang) => {
    const words = MENU_WORDS[lang];
    expect(Object.keys(words).sort()).toEqual(Object.keys(MENU_WORDS.en).sort());
    for (const [key, english] of Object.entries(MENU_WORDS.en)) {
      const word = (words as Record<string, unknown>)[key];
      const [theirs, ours] = typeof english === 'function' ? [(word as (u: string) => string)('u'), english('u')] : [word, english];
      expect(theirs, `${lang}.${key}`).toBeTruthy();
      expect(theirs, `${lang}.${key} is still English`).not.toBe(ours);
    }
  });
});
