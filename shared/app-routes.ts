/**
 * The web UI's addresses (README, "The explorer's addresses"): where the person is, as a URL,
 * so that Back, Forward, a reload and a bookmark land there. The renderer reads and writes
 * them; the daemon answers each with the UI's index.html and any other page path with a 404.
 *
 * A folder is a path (names joined by `/`); in the URL each name is percent-encoded on its
 * own, so a name with `#`, `?`, `%` or a space comes back as it went.
 */

/** Where the person is. `username: null` is the signed-in user's own (trash, search). */
export type AppRoute =
  | { page: 'home' }
  | { page: 'files'; username: string; folder: string | null }
  | { page: 'trash'; username: string | null }
  | { page: 'search'; query: string; username: string | null; folder: string | null }
  | { page: 'settings' }
  | { page: 'shared' }
  | { page: 'roles' }
  | { page: 'reset' };

/** Pages with nothing after their name. */
const PLAIN_PAGES = new Set(['settings', 'shared', 'roles', 'reset']);

/** Percent-decoded names of `segments`, or null when one is empty or a malformed escape. */
function decodeNames(segments: string[]): string[] | null {
  try {
    const names = segments.map(decodeURIComponent);
    return names.some((name) => name === '') ? null : names;
  } catch {
    return null;
  }
}

/**
 * The route of a pathname (as the browser has it, percent-encoded) and its query string, or
 * null when it is not one of the UI's pages. A trailing `/` is allowed.
 */
export function parseAppRoute(pathname: string, search = ''): AppRoute | null {
  const trimmed = pathname.replace(/\/+$/, '');
  if (trimmed === '') return { page: 'home' };
  const [, first, ...rest] = trimmed.split('/');
  if (PLAIN_PAGES.has(first) && rest.length === 0) return { page: first as 'settings' | 'shared' | 'roles' | 'reset' };
  if (first === 'search' && rest.length === 0) {
    const params = new URLSearchParams(search);
    return { page: 'search', query: params.get('q') ?? '', username: params.get('user') || null, folder: params.get('folder') || null };
  }
  const names = decodeNames(rest);
  if (names === null) return null;
  if (first === 'trash' && names.length <= 1) return { page: 'trash', username: names[0] ?? null };
  if (first === 'files' && names.length >= 1) {
    const [username, ...folder] = names;
    return { page: 'files', username, folder: folder.length > 0 ? folder.join('/') : null };
  }
  return null;
}

/** `photos/2024 june` → `photos/2024%20june`: each name encoded on its own, the `/` between kept. */
const encodePath = (folder: string) => folder.split('/').map(encodeURIComponent).join('/');

/** The URL (path and query) of a route; parseAppRoute reads it back as the same route. */
export function appRouteUrl(route: AppRoute): string {
  switch (route.page) {
    case 'home':
      return '/';
    case 'files':
      return `/files/${encodeURIComponent(route.username)}${route.folder === null ? '' : `/${encodePath(route.folder)}`}`;
    case 'trash':
      return route.username === null ? '/trash' : `/trash/${encodeURIComponent(route.username)}`;
    case 'search': {
      const params = new URLSearchParams({ q: route.query });
      if (route.username !== null) params.set('user', route.username);
      if (route.folder !== null) params.set('folder', route.folder);
      return `/search?${params.toString()}`;
    }
    default:
      return `/${route.page}`;
  }
}

/** Whether the daemon answers `pathname` (percent-encoded, as received) with the UI. */
export const isAppPath = (pathname: string) => parseAppRoute(pathname) !== null;
