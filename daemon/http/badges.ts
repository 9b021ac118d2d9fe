/**
 * The built-in roles' default badges, served by the daemon itself at /badges/<name>.svg so
 * that a page load never reaches for another host (an offline machine must make no such
 * request). Kept here rather than in renderer/public so they answer even without a built UI.
 */
import type { Context } from 'koa';
import { BUILT_IN_BADGE_NAMES } from '../../shared/badges.js';

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
  // The rest are offered by the role dialog for roles of one's own (issue 29; shared/badges.ts lists them).
  // Two people on a teal shield.
  [
    'team',
    shield(
      '#0d9488',
      '<circle cx="24" cy="25" r="6" fill="#fff"/><circle cx="40" cy="25" r="6" fill="#fff"/>' +
        '<path d="M13 45c1.4-6.4 5.6-9.6 11-9.6s9.6 3.2 11 9.6zM29 45c1.4-6.4 5.6-9.6 11-9.6s9.6 3.2 11 9.6z" fill="#fff"/>',
    ),
  ],
  // A person's outline on a slate shield.
  [
    'guest',
    shield(
      '#64748b',
      '<circle cx="32" cy="25" r="7" fill="none" stroke="#fff" stroke-width="3"/>' +
        '<path d="M19.5 45c1.8-7 6.8-10.5 12.5-10.5S42.7 38 44.5 45" fill="none" stroke="#fff" stroke-width="3"/>',
    ),
  ],
  // A star on a violet shield.
  ['star', shield('#7c3aed', '<path d="m32 15 4 11h11.5l-9.3 7 3.6 11.2L32 37.4l-9.8 6.8 3.6-11.2-9.3-7H28z" fill="#fff"/>')],
  // A heart on a rose shield.
  [
    'heart',
    shield(
      '#e11d48',
      '<path d="M32 46S16 36.5 16 26.5c0-5 3.8-8.5 8.3-8.5 3.5 0 6.2 2 7.7 4.8 1.5-2.8 4.2-4.8 7.7-4.8 4.5 0 8.3 3.5 8.3 8.5C48 36.5 32 46 32 46z" fill="#fff"/>',
    ),
  ],
]);

const BADGE_PATH = /^\/badges\/([a-z]+)\.svg$/;
// shared/badges.ts's list and this table must name the same badges.
for (const name of BUILT_IN_BADGE_NAMES) if (!BADGES.has(name)) throw new Error(`No drawing of the built-in badge ${name}`);

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
