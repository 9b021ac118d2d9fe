/**
 * The explorer's addresses (shared/app-routes.ts) read back as the place they were written
 * from, whatever the names hold; and what is no page of the UI is null (the daemon's 404).
 */
import { describe, expect, it } from 'vitest';
import { appRouteUrl, parseAppRoute, type AppRoute } from '../../shared/app-routes';
import { parentFolder, placeOf, storageRoute } from '../../renderer/lib/places';

const read = (url: string) => {
  const [pathname, search = ''] = url.split('?');
  return parseAppRoute(pathname, search);
};

describe('the addresses of the explorer', () => {
  it.each<AppRoute>([
    { page: 'home' },
    { page: 'files', username: 'ana', folder: null },
    { page: 'files', username: 'ana', folder: 'Docs' },
    { page: 'files', username: 'ana', folder: 'a#b c%d' },
    { page: 'files', username: 'ana', folder: 'photos/2024/june & july' },
    { page: 'files', username: 'zoë', folder: '日本/写真 #1' },
    { page: 'trash', username: null },
    { page: 'trash', username: 'ana' },
    { page: 'search', query: 'a&b=c #x', username: null, folder: null },
    { page: 'search', query: 'x', username: 'ana', folder: 'Docs/2024' },
    { page: 'settings' },
    { page: 'shared' },
    { page: 'roles' },
  ])('reads back %j', (route) => {
    const url = appRouteUrl(route);
    expect(url).not.toMatch(/[#\s]/);
    expect(read(url)).toEqual(route);
  });

  it('encodes each name of a folder path on its own, keeping the slashes between', () => {
    expect(appRouteUrl({ page: 'files', username: 'ana', folder: 'a b/c#d' })).toBe('/files/ana/a%20b/c%23d');
  });

  it.each(['/nothing', '/files', '/files/', '/trash/ana/more', '/settings/x', '/files/ana//Docs', '/files/ana/%E0%A4%A', '/index.html'])(
    'is no page: %s',
    (pathname) => {
      expect(parseAppRoute(pathname)).toBeNull();
    },
  );

  it('places a route for an admin and for a user, and goes up a path', () => {
    expect(placeOf({ page: 'home' }, 'ana', false)).toEqual({ kind: 'storage', username: 'ana', folder: null, search: '', tab: 'files' });
    expect(placeOf({ page: 'home' }, 'ana', true)).toEqual({ kind: 'overview' });
    expect(placeOf({ page: 'roles' }, 'ana', false)).toEqual({ kind: 'storage', username: 'ana', folder: null, search: '', tab: 'files' });
    expect(placeOf({ page: 'settings' }, null, true)).toEqual({ kind: 'settings' });
    expect(placeOf({ page: 'shared' }, null, true)).toEqual({ kind: 'overview' });
    expect(placeOf({ page: 'trash', username: 'bob' }, null, true)).toMatchObject({ kind: 'storage', username: 'bob', tab: 'trash' });
    expect(storageRoute('ana', 'Docs', '', 'ana')).toEqual({ page: 'files', username: 'ana', folder: 'Docs' });
    expect(storageRoute('bob', null, 'x', 'ana')).toEqual({ page: 'search', query: 'x', username: 'bob', folder: null });
    expect(parentFolder('a/b/c')).toBe('a/b');
    expect(parentFolder('a')).toBeNull();
  });
});
