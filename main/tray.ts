import { Menu, Tray, nativeImage, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import { TRAY_ICON_PNG, TRAY_TEMPLATE_2X_PNG, TRAY_TEMPLATE_PNG } from './icons.js';

/** What the tray's menu items do; main.ts wires them to the window, shell and daemon. */
export interface TrayActions {
  openWindow(): void;
  openStorageFolder(): void;
  openLogFolder(): void;
  copyApiKey(): void;
  quit(): void;
}

export function buildTrayMenuTemplate(actions: TrayActions): MenuItemConstructorOptions[] {
  return [
    { id: 'open', label: 'Open Nimbus', click: () => actions.openWindow() },
    { id: 'storage', label: 'Open storage folder', click: () => actions.openStorageFolder() },
    { id: 'logs', label: 'Open log folder', click: () => actions.openLogFolder() },
    { id: 'copy-key', label: 'Copy API key', click: () => actions.copyApiKey() },
    { type: 'separator' },
    { id: 'quit', label: 'Quit', click: () => actions.quit() },
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

/**
 * Creates the tray icon that keeps Nimbus reachable while its window is closed. The
 * caller must hold on to the returned Tray, or it is garbage-collected and vanishes.
 */
export function setupTray(actions: TrayActions, daemonUrl: string, platform: NodeJS.Platform = process.platform): Tray {
  const tray = new Tray(trayImage(platform));
  tray.setToolTip(`Nimbus — running at ${daemonUrl}`);
  tray.setContextMenu(Menu.buildFromTemplate(buildTrayMenuTemplate(actions)));
  // Windows and most Linux panels open the app on a click; macOS shows the menu instead.
  if (platform !== 'darwin') tray.on('click', () => actions.openWindow());
  return tray;
}
