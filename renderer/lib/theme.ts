import { useSyncExternalStore } from 'react';

/**
 * The page's theme: `system` follows the device (prefers-color-scheme), `light` and `dark` hold
 * whatever the device says. It is one attribute, `<html data-theme>`, which global.css turns into
 * `color-scheme`; every colour is a `light-dark()` of it, and form controls and scrollbars follow
 * the same property, so there is one mechanism and nothing to keep in step.
 *
 * At a page's start, before the first frame, public/theme-start.js (index.html's first script)
 * puts the theme this browser last showed on <html>, as `lastTheme` reads it here.
 */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** This browser's last appearance in effect (`{theme}`): the sign-in page's, and a reload's first frame's. */
export const LAST_APPEARANCE_ITEM = 'nimbus.appearance';

export const isTheme = (value: unknown): value is Theme => THEMES.includes(value as Theme);

// index.html's first script (public/theme-start.js) put the same on <html> before the first frame.
let current: Theme = lastTheme();
const listeners = new Set<() => void>();

/** Puts `theme` on the page at once (no reload) and tells whoever shows it. */
export function applyTheme(theme: Theme): void {
  current = theme;
  if (typeof document !== 'undefined') document.documentElement.dataset.theme = theme;
  for (const listener of listeners) listener();
}

/** The theme on the page now. */
export const currentTheme = (): Theme => current;

/** The theme this browser last showed; `system` when none was kept or storage is off. */
export function lastTheme(): Theme {
  try {
    const stored: unknown = JSON.parse(globalThis.localStorage?.getItem(LAST_APPEARANCE_ITEM) ?? 'null');
    const theme = (stored as { theme?: unknown } | null)?.theme;
    return isTheme(theme) ? theme : 'system';
  } catch {
    return 'system';
  }
}

/** Calls `listener` whenever the theme changes; answers the unsubscribe. */
export function onThemeChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The theme on the page, re-rendering when it changes. */
export function useTheme(): Theme {
  return useSyncExternalStore((onChange) => {
    listeners.add(onChange);
    return () => listeners.delete(onChange);
  }, currentTheme);
}
