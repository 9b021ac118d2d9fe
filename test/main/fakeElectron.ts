/**
 * A stand-in for the `electron` module (its binary is not installed here, and there is no
 * display): just enough of each API for main/ to run, recording what was done to it.
 * Tests use it as
 *   vi.mock('electron', () => import('./fakeElectron.js'))
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';

export class FakeMenu {
  constructor(readonly template: MenuItemConstructorOptions[]) {}
  /** Clicks the item with this label (searching submenus), as a user would. */
  click(label: string): void {
    const item = findItem(this.template, label);
    if (!item?.click) throw new Error(`No clickable item "${label}"`);
    (item.click as () => void)();
  }
}

export function findItem(items: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions | undefined {
  for (const item of items) {
    if (item.label === label) return item;
    if (Array.isArray(item.submenu)) {
      const found = findItem(item.submenu, label);
      if (found) return found;
    }
  }
  return undefined;
}

export const Menu = {
  buildFromTemplate: vi.fn((template: MenuItemConstructorOptions[]) => new FakeMenu(template)),
  setApplicationMenu: vi.fn(),
};

export class Tray extends EventEmitter {
  static instances: Tray[] = [];
  destroyed = false;
  destroy() {
    this.destroyed = true;
  }
  contextMenu: FakeMenu | null = null;
  toolTip = '';
  constructor(readonly image: unknown) {
    super();
    Tray.instances.push(this);
  }
  setContextMenu(menu: FakeMenu) {
    this.contextMenu = menu;
  }
  setToolTip(text: string) {
    this.toolTip = text;
  }
}

class FakeImage {
  template = false;
  representations: unknown[] = [];
  constructor(readonly buffer: Buffer) {}
  addRepresentation(rep: unknown) {
    this.representations.push(rep);
  }
  setTemplateImage(value: boolean) {
    this.template = value;
  }
}

export const nativeImage = {
  createFromBuffer: vi.fn((buffer: Buffer) => new FakeImage(buffer)),
};

export const nativeTheme = { shouldUseDarkColors: false };

export const screen = {
  getAllDisplays: vi.fn(() => [{ workArea: { x: 0, y: 0, width: 1920, height: 1040 } }]),
};

export const clipboard = { writeText: vi.fn() };

export const shell = {
  openPath: vi.fn(async (_path: string) => ''),
  openExternal: vi.fn(async (_url: string) => undefined),
  showItemInFolder: vi.fn(),
};

const paths = new Map<string, string>();

export const app = Object.assign(new EventEmitter(), {
  quit: vi.fn(),
  exit: vi.fn(),
  requestSingleInstanceLock: vi.fn(() => true),
  getLocale: vi.fn(() => 'en-US'),
  whenReady: vi.fn(async () => undefined),
  setName: vi.fn(),
  getPath: vi.fn((name: string) => {
    const path = paths.get(name);
    if (!path) throw new Error(`fake app: no path "${name}" set`);
    return path;
  }),
  setPath: vi.fn((name: string, path: string) => void paths.set(name, path)),
});

export const ipcMain = { handle: vi.fn() };

export const session = {
  defaultSession: {
    webRequest: { onHeadersReceived: vi.fn(), onBeforeSendHeaders: vi.fn() },
    setPermissionRequestHandler: vi.fn(),
    setPermissionCheckHandler: vi.fn(),
  },
};

export const dialog = { showErrorBox: vi.fn() };

export class FakeWebContents extends EventEmitter {
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
    this.windowOpenHandler = handler;
  }
}

export class BrowserWindow extends EventEmitter {
  static instances: BrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  visible = false;
  minimized = false;
  maximized = false;
  destroyed = false;
  focused = false;
  loadedUrl: string | null = null;
  bounds: { x: number; y: number; width: number; height: number };
  constructor(readonly options: Electron.BrowserWindowConstructorOptions) {
    super();
    this.bounds = { x: options.x ?? 100, y: options.y ?? 100, width: options.width ?? 800, height: options.height ?? 600 };
    BrowserWindow.instances.push(this);
  }
  async loadURL(url: string) {
    this.loadedUrl = url;
  }
  show() {
    this.visible = true;
  }
  focus() {
    this.focused = true;
  }
  restore() {
    this.minimized = false;
  }
  maximize() {
    this.maximized = true;
  }
  isVisible() {
    return this.visible;
  }
  isMinimized() {
    return this.minimized;
  }
  isMaximized() {
    return this.maximized;
  }
  isDestroyed() {
    return this.destroyed;
  }
  getNormalBounds() {
    return this.bounds;
  }
  /** What the user closing the window does: 'close', then (unless prevented) 'closed'. */
  close() {
    let prevented = false;
    this.emit('close', { preventDefault: () => (prevented = true) });
    if (prevented) return;
    this.destroyed = true;
    this.emit('closed');
  }
}

export const contextBridge = { exposeInMainWorld: vi.fn() };
export const ipcRenderer = { invoke: vi.fn(async (..._args: unknown[]): Promise<unknown> => undefined), send: vi.fn(), on: vi.fn() };

export default {
  Menu,
  Tray,
  nativeImage,
  nativeTheme,
  screen,
  clipboard,
  shell,
  app,
  ipcMain,
  session,
  dialog,
  BrowserWindow,
  contextBridge,
  ipcRenderer,
};
