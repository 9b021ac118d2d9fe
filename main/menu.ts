import { Menu, type MenuItemConstructorOptions } from 'electron';

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
 * the app menu; elsewhere Quit and About live under File and Help.
 */
export function buildAppMenuTemplate(platform: NodeJS.Platform, actions: AppMenuActions): MenuItemConstructorOptions[] {
  const isMac = platform === 'darwin';
  const quit: MenuItemConstructorOptions = {
    id: 'quit',
    label: isMac ? 'Quit Nimbus' : 'Quit',
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
    label: 'File',
    submenu: [
      { id: 'open-storage', label: 'Open Storage Folder', accelerator: 'CmdOrCtrl+Shift+O', click: () => actions.openStorageFolder() },
      { id: 'open-logs', label: 'Open Log Folder', click: () => actions.openLogFolder() },
      { id: 'open-browser', label: 'Open in Browser', click: () => actions.openInBrowser() },
      { id: 'copy-key', label: 'Copy API Key', click: () => actions.copyApiKey() },
      { type: 'separator' },
      { role: 'close', label: 'Close Window' },
      ...(isMac ? [] : [{ type: 'separator' } as const, quit]),
    ],
  };
  const editMenu: MenuItemConstructorOptions = {
    label: 'Edit',
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
    label: 'View',
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
    label: 'Window',
    role: 'window',
    submenu: isMac
      ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }]
      : [{ role: 'minimize' }, { role: 'close' }],
  };
  const helpMenu: MenuItemConstructorOptions = {
    label: 'Help',
    role: 'help',
    submenu: isMac
      ? [{ id: 'open-browser-help', label: 'Open Nimbus in Browser', click: () => actions.openInBrowser() }]
      : [{ role: 'about' }],
  };
  return [...(isMac ? [appMenu] : []), fileMenu, editMenu, viewMenu, windowMenu, helpMenu];
}

export function setupAppMenu(actions: AppMenuActions, platform: NodeJS.Platform = process.platform): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(buildAppMenuTemplate(platform, actions)));
}
