import { BrowserWindow, nativeImage, nativeTheme, screen } from 'electron';
import { APP_ICON_PNG } from './icons.js';
import { shellLog } from './log.js';
import { guardWebContents } from './navigation.js';
import { buildWindowOptions } from './windowOptions.js';
import { loadWindowState, trackWindowState } from './windowState.js';

export interface MainWindowOptions {
  daemonUrl: string;
  preloadPath: string;
  stateFile: string;
  openExternal(url: string): Promise<void>;
}

/**
 * The one Nimbus window. Closing it destroys it (the daemon and tray stay); `show()`
 * brings it back, re-created at its remembered size and position if needed.
 */
export class MainWindow {
  #window: BrowserWindow | null = null;
  readonly #options: MainWindowOptions;

  constructor(options: MainWindowOptions) {
    this.#options = options;
  }

  get window(): BrowserWindow | null {
    return this.#window;
  }

  show(): void {
    const win = this.#window ?? this.#create();
    if (win.isMinimized()) win.restore();
    if (win.isVisible()) win.focus();
    // A window that is still loading shows itself on 'ready-to-show'.
  }

  #create(): BrowserWindow {
    const { daemonUrl, preloadPath, stateFile, openExternal } = this.#options;
    const state = loadWindowState(
      stateFile,
      screen.getAllDisplays().map((d) => d.workArea),
    );
    const icon = process.platform === 'darwin' ? undefined : nativeImage.createFromBuffer(Buffer.from(APP_ICON_PNG, 'base64'));
    const win = new BrowserWindow(buildWindowOptions({ state, preloadPath, darkTheme: nativeTheme.shouldUseDarkColors, icon }));
    this.#window = win;
    guardWebContents(win.webContents, new URL(daemonUrl).origin, openExternal);
    trackWindowState(win, stateFile);
    win.once('ready-to-show', () => {
      if (state.maximized) win.maximize();
      win.show();
      win.focus();
    });
    win.on('closed', () => {
      if (this.#window === win) this.#window = null;
    });
    win.loadURL(daemonUrl).catch((err: unknown) => shellLog.error(`Nimbus: could not load ${daemonUrl}: ${(err as Error).message}`));
    return win;
  }
}
