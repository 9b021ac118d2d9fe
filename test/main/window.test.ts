import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('./fakeElectron.js'));

const electron = await import('./fakeElectron.js');
const { MainWindow } = await import('../../main/window.js');
const { saveWindowState, windowStateFile, loadWindowState } = await import('../../main/windowState.js');

const DAEMON_URL = 'http://127.0.0.1:7878';
let dir: string;
let openExternal: ReturnType<typeof vi.fn<(url: string) => Promise<void>>>;

function mainWindow() {
  openExternal = vi.fn(async (_url: string) => undefined);
  return new MainWindow({ daemonUrl: DAEMON_URL, preloadPath: '/dist/main/preload.cjs', stateFile: windowStateFile(dir), openExternal });
}

const lastWindow = () => electron.BrowserWindow.instances.at(-1)!;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nimbus-window-'));
  electron.BrowserWindow.instances.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('MainWindow', () => {
  it('opens one secure window on the daemon URL', () => {
    mainWindow().show();
    expect(electron.BrowserWindow.instances).toHaveLength(1);
    const win = lastWindow();
    expect(win.loadedUrl).toBe(DAEMON_URL);
    expect(win.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      preload: '/dist/main/preload.cjs',
    });
  });

  it('shows the window once its page is ready, not before', () => {
    mainWindow().show();
    const win = lastWindow();
    expect(win.visible).toBe(false);
    win.emit('ready-to-show');
    expect(win.visible).toBe(true);
  });

  it('denies window.open and navigation away in its page', () => {
    mainWindow().show();
    const win = lastWindow();
    expect(win.webContents.windowOpenHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    let prevented = false;
    win.webContents.emit('will-navigate', { url: 'https://example.com/', preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(openExternal).toHaveBeenCalledWith('https://example.com/');
  });

  it('focuses the existing window instead of opening a second one', () => {
    const main = mainWindow();
    main.show();
    lastWindow().emit('ready-to-show');
    main.show();
    expect(electron.BrowserWindow.instances).toHaveLength(1);
    expect(lastWindow().focused).toBe(true);
  });

  it('restores a minimised window when shown', () => {
    const main = mainWindow();
    main.show();
    lastWindow().minimized = true;
    main.show();
    expect(lastWindow().minimized).toBe(false);
  });

  it('opens a new window after the old one was closed (the daemon kept running)', () => {
    const main = mainWindow();
    main.show();
    lastWindow().close();
    expect(main.window).toBeNull();
    main.show();
    expect(electron.BrowserWindow.instances).toHaveLength(2);
    expect(lastWindow().loadedUrl).toBe(DAEMON_URL);
  });

  it('opens where it was last closed, at the same size', () => {
    saveWindowState(windowStateFile(dir), { x: 200, y: 150, width: 1280, height: 820, maximized: false });
    mainWindow().show();
    expect(lastWindow().options).toMatchObject({ x: 200, y: 150, width: 1280, height: 820 });
  });

  it('re-maximises a window that was maximised', () => {
    saveWindowState(windowStateFile(dir), { width: 1280, height: 820, maximized: true });
    mainWindow().show();
    lastWindow().emit('ready-to-show');
    expect(lastWindow().maximized).toBe(true);
  });

  it('remembers its bounds when closed', () => {
    const main = mainWindow();
    main.show();
    lastWindow().bounds = { x: 321, y: 123, width: 1111, height: 777 };
    lastWindow().close();
    expect(loadWindowState(windowStateFile(dir), [{ x: 0, y: 0, width: 1920, height: 1040 }])).toMatchObject({
      x: 321,
      y: 123,
      width: 1111,
      height: 777,
    });
  });
});
