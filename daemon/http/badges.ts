/**
 * The built-in roles' default badges, served by the daemon itself at /badges/<name>.svg so
 * that a page load never reaches for another host (an offline machine must make no such
 * request). Kept here rather than in renderer/public so they answer even without a built UI.
 */
import type { Context } from 'koa';

const shield = (fill: string, inner: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">` +
  `<path d="M32 4 8 13v17c0 15 10.3 26.4 24 30 13.7-3.6 24-15 24-30V13z" fill="${fill}"/>` +
  `${inner}</svg>\n`;

const BADGES: ReadonlyMap<string, string> = new Map([
  // A person on a blue shield.
  ['user', shield('#3b82f6', '<circle cx="32" cy="25" r="8" fill="#fff"/><path d="M18 46c1.8-8 7.4-12 14-12s12.2 4 14 12z" fill="#fff"/>')],
  // A star on an amber shield.
  [
    'admin',
    shield('#d97706', '<path d="m32 16 4.6 9.4 10.4 1.5-7.5 7.3 1.8 10.3L32 39.6l-9.3 4.9 1.8-10.3-7.5-7.3 10.4-1.5z" fill="#fff"/>'),
  ],
]);

const BADGE_PATH = /^\/badges\/([a-z]+)\.svg$/;

/** Answers GET /badges/<name>.svg with a built-in badge; false when the path names none. */
export function serveBadge(ctx: Context): boolean {
  const name = BADGE_PATH.exec(ctx.path)?.[1];
  const svg = name === undefined ? undefined : BADGES.get(name);
  if (svg === undefined) return false;
  ctx.status = 200;
  ctx.type = 'image/svg+xml';
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.body = svg; // Koa sends no body for a HEAD
  return true;
}
