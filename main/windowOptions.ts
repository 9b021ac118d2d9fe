import type { BrowserWindowConstructorOptions, NativeImage } from 'electron';
import { MIN_HEIGHT, MIN_WIDTH, type WindowState } from './windowState.js';

export interface WindowOptionsInput {
  state: WindowState;
  preloadPath: string;
  darkTheme: boolean;
  icon?: NativeImage;
}

/** The locked-down preferences every Nimbus window uses (docs/architecture.md#the-desktop-shell). */
export function secureWebPreferences(preloadPath: string): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: true,
  };
}

export function buildWindowOptions({ state, preloadPath, darkTheme, icon }: WindowOptionsInput): BrowserWindowConstructorOptions {
  return {
    title: 'Nimbus',
    x: state.x,
    y: state.y,
    width: state.width,
    height: state.height,
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    // Shown on 'ready-to-show', so the user never sees an empty white frame.
    show: false,
    // Matches the renderer's background for the OS theme to avoid a flash on load.
    backgroundColor: darkTheme ? '#16181d' : '#ffffff',
    autoHideMenuBar: false,
    ...(icon ? { icon } : {}),
    webPreferences: secureWebPreferences(preloadPath),
  };
}
