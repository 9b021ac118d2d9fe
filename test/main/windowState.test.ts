import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_WINDOW_STATE,
  MIN_HEIGHT,
  MIN_WIDTH,
  loadWindowState,
  restoreWindowState,
  saveWindowState,
  trackWindowState,
  windowStateFile,
} from '../../main/windowState.js';

const ONE_SCREEN = [{ x: 0, y: 0, width: 1920, height: 1040 }];
const TWO_SCREENS = [...ONE_SCREEN, { x: 1920, y: 0, width: 2560, height: 1400 }];

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nimbus-winstate-'));
  file = windowStateFile(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('window state on disk', () => {
  it('comes back as it was saved', () => {
    const state = { x: 100, y: 80, width: 1300, height: 900, maximized: true };
    saveWindowState(file, state);
    expect(loadWindowState(file, ONE_SCREEN)).toEqual(state);
  });

  it('is a small JSON file in the user data directory, readable only by its owner', () => {
    saveWindowState(file, { x: 1, y: 2, width: 800, height: 600, maximized: false });
    expect(file).toBe(join(dir, 'window-state.json'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ width: 800, height: 600 });
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o077).toBe(0);
  });

  it('defaults when there is no file yet', () => {
    expect(loadWindowState(file, ONE_SCREEN)).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('defaults when the file is damaged, without throwing', () => {
    writeFileSync(file, '{"width": 12');
    expect(loadWindowState(file, ONE_SCREEN)).toEqual(DEFAULT_WINDOW_STATE);
  });
});

describe('restoreWindowState', () => {
  it('drops a position that is on no screen any more (a monitor was unplugged)', () => {
    const state = restoreWindowState({ x: 2500, y: 100, width: 1000, height: 700, maximized: false }, ONE_SCREEN);
    expect(state.x).toBeUndefined();
    expect(state.y).toBeUndefined();
    expect(state).toMatchObject({ width: 1000, height: 700 });
  });

  it('keeps a position on a second screen while it is connected', () => {
    expect(restoreWindowState({ x: 2500, y: 100, width: 1000, height: 700, maximized: false }, TWO_SCREENS)).toMatchObject({
      x: 2500,
      y: 100,
    });
  });

  it('drops a position whose title bar is above the screen', () => {
    expect(restoreWindowState({ x: 100, y: -500, width: 1000, height: 400, maximized: false }, ONE_SCREEN).y).toBeUndefined();
  });

  it('clamps sizes between the minimum and the largest screen', () => {
    expect(restoreWindowState({ width: 100, height: 50, maximized: false }, ONE_SCREEN)).toMatchObject({
      width: MIN_WIDTH,
      height: MIN_HEIGHT,
    });
    expect(restoreWindowState({ width: 9000, height: 9000, maximized: false }, ONE_SCREEN)).toMatchObject({ width: 1920, height: 1040 });
  });

  it('ignores values of the wrong type', () => {
    const state = restoreWindowState({ x: '10', y: null, width: 'wide', height: 1.5, maximized: 'yes' }, ONE_SCREEN);
    expect(state).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('fits the default size to a small screen', () => {
    expect(restoreWindowState(null, [{ x: 0, y: 0, width: 1024, height: 600 }])).toMatchObject({ width: 1024, height: 600 });
  });
});

describe('trackWindowState', () => {
  class Win extends EventEmitter {
    bounds = { x: 10, y: 20, width: 1000, height: 700 };
    maximized = false;
    destroyed = false;
    getNormalBounds() {
      return this.bounds;
    }
    isMaximized() {
      return this.maximized;
    }
    isDestroyed() {
      return this.destroyed;
    }
  }

  it('saves shortly after the window stops moving, once', () => {
    vi.useFakeTimers();
    try {
      const win = new Win();
      trackWindowState(win as never, file, 500);
      win.bounds = { x: 300, y: 200, width: 1100, height: 750 };
      win.emit('move');
      win.emit('resize');
      vi.advanceTimersByTime(499);
      expect(() => readFileSync(file)).toThrow();
      vi.advanceTimersByTime(1);
      expect(loadWindowState(file, ONE_SCREEN)).toEqual({ x: 300, y: 200, width: 1100, height: 750, maximized: false });
    } finally {
      vi.useRealTimers();
    }
  });

  it('saves at once when the window closes, remembering it was maximised', () => {
    const win = new Win();
    trackWindowState(win as never, file);
    win.maximized = true;
    win.emit('close');
    expect(loadWindowState(file, ONE_SCREEN)).toMatchObject({ x: 10, y: 20, width: 1000, height: 700, maximized: true });
  });

  it('returns a function that saves now (used when quitting)', () => {
    const win = new Win();
    const saveNow = trackWindowState(win as never, file);
    saveNow();
    expect(loadWindowState(file, ONE_SCREEN)).toMatchObject({ width: 1000 });
  });
});
