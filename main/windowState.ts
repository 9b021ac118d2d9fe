import { join } from 'node:path';
import type { BrowserWindow, Rectangle } from 'electron';
import { isRecord, readJsonFile, writeJsonFile } from './jsonFile.js';
import { shellLog } from './log.js';

/** The window's last normal (un-maximised) bounds and whether it was maximised. */
export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export const WINDOW_STATE_FILE = 'window-state.json';
export const DEFAULT_WINDOW_STATE: WindowState = { width: 1200, height: 800, maximized: false };
export const MIN_WIDTH = 720;
export const MIN_HEIGHT = 480;
/** How much of the title bar must lie on a screen for a saved position to be reused. */
const VISIBLE_MARGIN = 64;

export function windowStateFile(userDataDir: string): string {
  return join(userDataDir, WINDOW_STATE_FILE);
}

const isFiniteInt = (v: unknown): v is number => Number.isInteger(v);

function intersects(a: Rectangle, b: Rectangle): boolean {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return width >= VISIBLE_MARGIN && height >= Math.min(VISIBLE_MARGIN, a.height);
}

/**
 * Turns whatever is on disk into a usable state for the current screens: sizes are
 * clamped to the largest work area, and a position that is no longer on any screen (a
 * monitor was unplugged) is dropped so the window opens centred.
 */
export function restoreWindowState(saved: unknown, workAreas: Rectangle[]): WindowState {
  const raw = isRecord(saved) ? saved : {};
  const maxWidth = Math.max(MIN_WIDTH, ...workAreas.map((a) => a.width));
  const maxHeight = Math.max(MIN_HEIGHT, ...workAreas.map((a) => a.height));
  const clamp = (v: unknown, min: number, max: number, fallback: number) => (isFiniteInt(v) ? Math.min(Math.max(v, min), max) : fallback);
  const state: WindowState = {
    width: clamp(raw.width, MIN_WIDTH, maxWidth, Math.min(DEFAULT_WINDOW_STATE.width, maxWidth)),
    height: clamp(raw.height, MIN_HEIGHT, maxHeight, Math.min(DEFAULT_WINDOW_STATE.height, maxHeight)),
    maximized: raw.maximized === true,
  };
  if (isFiniteInt(raw.x) && isFiniteInt(raw.y)) {
    // Only the title bar strip matters: the user must be able to grab the window.
    const titleBar = { x: raw.x, y: raw.y, width: state.width, height: 32 };
    if (workAreas.some((area) => intersects(titleBar, area))) {
      state.x = raw.x;
      state.y = raw.y;
    }
  }
  return state;
}

export function loadWindowState(file: string, workAreas: Rectangle[]): WindowState {
  let raw: unknown = null;
  try {
    raw = readJsonFile(file);
  } catch {
    // A damaged state file only costs the window its last position.
  }
  return restoreWindowState(raw, workAreas);
}

export function saveWindowState(file: string, state: WindowState): void {
  writeJsonFile(file, state);
}

export function captureWindowState(win: Pick<BrowserWindow, 'getNormalBounds' | 'isMaximized'>): WindowState {
  const { x, y, width, height } = win.getNormalBounds();
  return { x, y, width, height, maximized: win.isMaximized() };
}

/**
 * Saves the window's state shortly after it stops moving or resizing, and at once when
 * it closes. Returns a function that saves immediately (for quitting).
 */
export function trackWindowState(
  win: Pick<BrowserWindow, 'on' | 'getNormalBounds' | 'isMaximized' | 'isDestroyed'>,
  file: string,
  delayMs = 500,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const saveNow = () => {
    clearTimeout(timer);
    timer = undefined;
    if (win.isDestroyed()) return;
    try {
      saveWindowState(file, captureWindowState(win));
    } catch (err) {
      shellLog.warn(`Nimbus: could not save the window position: ${(err as Error).message}`);
    }
  };
  const saveSoon = () => {
    clearTimeout(timer);
    timer = setTimeout(saveNow, delayMs);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) {
    win.on(event as 'resize', saveSoon);
  }
  win.on('close', saveNow);
  return saveNow;
}
