import { app, Menu, type MenuItemConstructorOptions } from 'electron';
import { MENU_WORDS, menuWords, type MenuWords } from './menu-words.js';

/** The custom commands of the application menu; the standard ones are Electron roles. */
export interface AppMenuActions {
  openStorageFolder(): void;
  openLogFolder(): void;
  openInBrowser(): void;
  copyApiKey(): void;
  quit(): void;
}

/**
 * The usual menus with the usual shortcuts (roles bring the platform's accelerators:
 * Ctrl/Cmd+C, V, X, Z, A, R, W, +/-/0, F11 or Ctrl+Cmd+F). On macOS the first menu is
 * the app menu; elsewhere Quit and About live under File and Help. `w`: the words of the
 * system's language (menu-words.ts).
 */
export function buildAppMenuTemplate(
  platform: NodeJS.Platform,
  actions: AppMenuActions,
  w: MenuWords = MENU_WORDS.en,
): MenuItemConstructorOptions[] {
  const isMac = platform === 'darwin';
  const quit: MenuItemConstructorOptions = {
    id: 'quit',
    label: isMac ? w.quitNimbus : w.quit,
    accelerator: 'CmdOrCtrl+Q',
    click: () => actions.quit(),
  };
  const appMenu: MenuItemConstructorOptions = {
    label: 'Nimbus',
    submenu: [
      { role: 'about' },
      { type: 'separator' },
      { role: 'services' },
      { type: 'separator' },
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      { type: 'separator' },
      quit,
    ],
  };
  const fileMenu: MenuItemConstructorOptions = {
    label: w.file,
    submenu: [
      { id: 'open-storage', label: w.openStorage, accelerator: 'CmdOrCtrl+Shift+O', click: () => actions.openStorageFolder() },
      { id: 'open-logs', label: w.openLogs, click: () => actions.openLogFolder() },
      { id: 'open-browser', label: w.openInBrowser, click: () => actions.openInBrowser() },
      { id: 'copy-key', label: w.copyKey, click: () => actions.copyApiKey() },
      { type: 'separator' },
      { role: 'close', label: w.closeWindow },
      ...(isMac ? [] : [{ type: 'separator' } as const, quit]),
    ],
  };
  const editMenu: MenuItemConstructorOptions = {
    label: w.edit,
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(isMac ? [{ role: 'pasteAndMatchStyle' } as const] : []),
      { role: 'delete' },
      { type: 'separator' },
      { role: 'selectAll' },
    ],
  };
  const viewMenu: MenuItemConstructorOptions = {
    label: w.view,
    submenu: [
      { role: 'reload' },
      { role: 'forceReload' },
      { role: 'toggleDevTools' },
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  const windowMenu: MenuItemConstructorOptions = {
    label: w.window,
    role: 'window',
    submenu: isMac
      ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }]
      : [{ role: 'minimize' }, { role: 'close' }],
  };
  const helpMenu: MenuItemConstructorOptions = {
    label: w.help,
    role: 'help',
    submenu: isMac
      ? [{ id: 'open-browser-help', label: w.openNimbusInBrowser, click: () => actions.openInBrowser() }]
      : [{ role: 'about' }],
  };
  return [...(isMac ? [appMenu] : []), fileMenu, editMenu, viewMenu, windowMenu, helpMenu];
}

/** Installs the application menu in the system's language (`locale`: Electron's, once the app is ready). */
export function setupAppMenu(actions: AppMenuActions, platform: NodeJS.Platform = process.platform, locale = app.getLocale()): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(buildAppMenuTemplate(platform, actions, menuWords(locale))));
}
