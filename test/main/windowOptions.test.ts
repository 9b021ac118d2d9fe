import { describe, expect, it } from 'vitest';
import { buildWindowOptions, secureWebPreferences } from '../../main/windowOptions.js';
import { DEFAULT_WINDOW_STATE, MIN_HEIGHT, MIN_WIDTH } from '../../main/windowState.js';

describe('secureWebPreferences', () => {
  const prefs = secureWebPreferences('/app/dist/main/preload.cjs');

  it('isolates the page from Node and Electron', () => {
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it('loads the CommonJS preload', () => {
    expect(prefs.preload).toBe('/app/dist/main/preload.cjs');
  });

  it('never turns on experimental or remote features', () => {
    expect(prefs).not.toHaveProperty('experimentalFeatures');
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
  });
});

describe('buildWindowOptions', () => {
  it('places the window where it was, at its remembered size', () => {
    const options = buildWindowOptions({
      state: { x: 40, y: 50, width: 1000, height: 700, maximized: false },
      preloadPath: '/p.cjs',
      darkTheme: false,
    });
    expect(options).toMatchObject({ x: 40, y: 50, width: 1000, height: 700, minWidth: MIN_WIDTH, minHeight: MIN_HEIGHT });
  });

  it('leaves the position to the OS (centred) when none is remembered', () => {
    const options = buildWindowOptions({ state: DEFAULT_WINDOW_STATE, preloadPath: '/p.cjs', darkTheme: false });
    expect(options.x).toBeUndefined();
    expect(options.y).toBeUndefined();
  });

  it('starts hidden, to show on ready-to-show without a white flash', () => {
    const light = buildWindowOptions({ state: DEFAULT_WINDOW_STATE, preloadPath: '/p.cjs', darkTheme: false });
    const dark = buildWindowOptions({ state: DEFAULT_WINDOW_STATE, preloadPath: '/p.cjs', darkTheme: true });
    expect(light.show).toBe(false);
    expect(light.backgroundColor).toBe('#ffffff');
    expect(dark.backgroundColor).not.toBe('#ffffff');
  });

  it('always uses the secure preferences', () => {
    const options = buildWindowOptions({ state: DEFAULT_WINDOW_STATE, preloadPath: '/p.cjs', darkTheme: false });
    expect(options.webPreferences).toEqual(secureWebPreferences('/p.cjs'));
  });
});
