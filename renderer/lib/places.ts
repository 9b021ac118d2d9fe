import type { AppRoute } from '../../shared/app-routes';

/**
 * What the window shows for a route (shared/app-routes.ts). `storage`: one user's files (in
 * `folder`, with `search` typed) or their trash; `trash`, `shared` and `settings` are the
 * signed-in person's own places.
 */
export type Place =
  | { kind: 'storage'; username: string; folder: string | null; search: string; tab: 'files' | 'trash' }
  | { kind: 'overview' | 'roles' | 'shared' | 'trash' | 'settings' };

/**
 * The place of `route` for `self` (the signed-in user, null for the desktop app's admin key).
 * The start page is an admin's Overview and a user's own files; a place that needs a self (or,
 * for Roles, an admin) falls back to the start page, never to a blank one.
 */
export function placeOf(route: AppRoute, self: string | null, admin: boolean): Place {
  const start: Place = admin || self === null ? { kind: 'overview' } : storage(self, null);
  switch (route.page) {
    case 'files':
      return storage(route.username, route.folder);
    case 'search': {
      const username = route.username ?? self;
      return username === null ? start : { ...storage(username, route.folder), search: route.query };
    }
    case 'trash':
      if (route.username !== null) return { ...storage(route.username, null), tab: 'trash' };
      return self === null ? start : { kind: 'trash' };
    case 'shared':
      return self === null ? start : { kind: route.page };
    case 'settings':
      // Whoever is signed in has Settings: a key with no user (the admin key) its appearance.
      return { kind: 'settings' };
    case 'roles':
      return admin ? { kind: 'roles' } : start;
    default:
      return start;
  }
}

type StoragePlace = Extract<Place, { kind: 'storage' }>;

function storage(username: string, folder: string | null): StoragePlace {
  return { kind: 'storage', username, folder, search: '', tab: 'files' };
}

/** The route of a user's folder with `search` typed in it: the folder's own when nothing is. */
export function storageRoute(username: string, folder: string | null, search: string, self: string | null): AppRoute {
  if (search === '') return { page: 'files', username, folder };
  return { page: 'search', query: search, username: username === self ? null : username, folder };
}

/** The route of one of the signed-in person's own places. */
export function placeRoute(place: 'files' | 'shared' | 'trash' | 'settings', self: string | null): AppRoute {
  if (place === 'files') return self === null ? { page: 'home' } : { page: 'files', username: self, folder: null };
  return place === 'trash' ? { page: 'trash', username: null } : { page: place };
}

/** The path of `name` inside `folder` (null: the user's root). */
export function childFolder(folder: string | null, name: string): string {
  return folder === null ? name : `${folder}/${name}`;
}

/** The last name of a folder path. */
export function folderName(folder: string): string {
  return folder.slice(folder.lastIndexOf('/') + 1);
}

/** The folder above `folder` (a path: names joined by `/`); null is the user's root. */
export function parentFolder(folder: string): string | null {
  const cut = folder.lastIndexOf('/');
  return cut === -1 ? null : folder.slice(0, cut);
}
