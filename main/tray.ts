import { app, Menu, Tray, nativeImage, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import { TRAY_ICON_PNG, TRAY_TEMPLATE_2X_PNG, TRAY_TEMPLATE_PNG } from './icons.js';
import { MENU_WORDS, menuWords, type MenuWords } from './menu-words.js';

/** What the tray's menu items do; main.ts wires them to the window, shell and daemon. */
export interface TrayActions {
  openWindow(): void;
  openStorageFolder(): void;
  openLogFolder(): void;
  copyApiKey(): void;
  quit(): void;
}

/** The tray's menu, in `w`, the words of the system's language (menu-words.ts). */
export function buildTrayMenuTemplate(actions: TrayActions, w: MenuWords = MENU_WORDS.en): MenuItemConstructorOptions[] {
  return [
    { id: 'open', label: w.trayOpen, click: () => actions.openWindow() },
    { id: 'storage', label: w.trayStorage, click: () => actions.openStorageFolder() },
    { id: 'logs', label: w.trayLogs, click: () => actions.openLogFolder() },
    { id: 'copy-key', label: w.trayCopyKey, click: () => actions.copyApiKey() },
    { type: 'separator' },
    { id: 'quit', label: w.quit, click: () => actions.quit() },
  ];
}

/** The tray image: a template image that macOS tints for its menu bar, the coloured icon elsewhere. */
export function trayImage(platform: NodeJS.Platform): NativeImage {
  if (platform !== 'darwin') return nativeImage.createFromBuffer(Buffer.from(TRAY_ICON_PNG, 'base64'));
  const image = nativeImage.createFromBuffer(Buffer.from(TRAY_TEMPLATE_PNG, 'base64'), { scaleFactor: 1 });
  image.addRepresentation({ scaleFactor: 2, buffer: Buffer.from(TRAY_TEMPLATE_2X_PNG, 'base64') });
  image.setTemplateImage(true);
  return image;
}

/** Gives the tray its tooltip and menu in `locale`'s words: at start, and again when the explorer's language changes. */
export function wordTray(tray: Pick<Tray, 'setToolTip' | 'setContextMenu'>, actions: TrayActions, daemonUrl: string, locale: string): void {
  const w = menuWords(locale);
  tray.setToolTip(w.trayTooltip(daemonUrl));
  tray.setContextMenu(Menu.buildFromTemplate(buildTrayMenuTemplate(actions, w)));
}

/**
 * Creates the tray icon that keeps Nimbus reachable while its window is closed. The
 * caller must hold on to the returned Tray, or it is garbage-collected and vanishes. Its words
 * are in the system's language (`locale`: Electron's, once the app is ready).
 */
export function setupTray(
  actions: TrayActions,
  daemonUrl: string,
  platform: NodeJS.Platform = process.platform,
  locale = app.getLocale(),
): Tray {
  const tray = new Tray(trayImage(platform));
  wordTray(tray, actions, daemonUrl, locale);
  // Windows and most Linux panels open the app on a click; macOS shows the menu instead.
  if (platform !== 'darwin') tray.on('click', () => actions.openWindow());
  return tray;
}
