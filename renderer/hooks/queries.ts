import { useQueries, useQuery } from '@tanstack/react-query';
import { ERROR_SHOWN_IN_PLACE } from '../api/loadErrors';
import { queryKeys } from '../api/queryKeys';
import { useClient } from '../components/Session/sessionContext';
import { childFolder } from '../lib/places';
import { folderLinksOf } from '../lib/shareLinks';

export function useUsers() {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.users, queryFn: ({ signal }) => client.call('user.all', {}, signal) });
}

export function useRoles() {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.roles, queryFn: ({ signal }) => client.call('role.all', {}, signal) });
}

/**
 * The daemon's status; asked for often while the daemon seems gone, so its return shows soon.
 * Admins only (`dash.get`): for anyone else `enabled` is false and nothing is asked.
 */
export function useDash(doubtful = false, enabled = true) {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.dash,
    queryFn: ({ signal }) => client.call('dash.get', {}, signal),
    refetchInterval: doubtful ? 3_000 : 30_000,
    enabled,
  });
}

/** One user's record (the signed-in user's own, for their header and Settings). */
export function useUser(username: string) {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.user(username), queryFn: ({ signal }) => client.call('user.get', { username }, signal) });
}

/** The caller's own sessions (`auth.sessions`). */
export function useSessions() {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.sessions,
    queryFn: async ({ signal }) => (await client.call('auth.sessions', {}, signal)).sessions,
    meta: ERROR_SHOWN_IN_PLACE, // Settings' Sessions card
  });
}

/** The API keys the caller may see: a user's own personal keys; for an admin, every key. */
export function useKeys() {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.keys,
    queryFn: async ({ signal }) => (await client.call('keys.list', {}, signal)).keys,
    meta: ERROR_SHOWN_IN_PLACE, // Settings' Keys card
  });
}

/** How often the links' downloads are asked for again while shown (a download publishes no event). */
const SHARES_REFRESH_MS = 30_000;

/**
 * A user's share links, newest first, with their options, downloads so far and state
 * (shares.list). A download publishes no event, so the list is asked for again whenever a view
 * of it opens, and every half minute while one is open.
 */
export function useShares(username: string) {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.shares(username),
    queryFn: async ({ signal }) => (await client.call('shares.list', { username }, signal)).shares,
    refetchOnMount: 'always',
    refetchInterval: SHARES_REFRESH_MS,
  });
}

/**
 * The folder and upload links of a user's folders, by folder path (a `Folder` has no share flag):
 * the same list as useShares, read from its cache, not asked for every half minute (a link is
 * made or revoked with a `share.changed` event, which makes the list stale).
 */
export function useFolderLinks(username: string) {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.shares(username),
    queryFn: async ({ signal }) => (await client.call('shares.list', { username }, signal)).shares,
    select: folderLinksOf,
  });
}

/** How many folders.list calls the walk below keeps in flight at once. */
const WALK_PARALLEL = 6;

/**
 * The path of every folder of a user, parents first: folders.list level by level, asked only of
 * the folders whose `folderCount` says they hold folders. Under the `folders` prefix, so every
 * folder and file event of the user walks it again.
 */
export function useEveryFolder(username: string) {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.everyFolder(username),
    queryFn: async ({ signal }) => {
      const paths: string[] = [];
      let level: (string | null)[] = [null];
      while (level.length > 0) {
        const next: string[] = [];
        for (let start = 0; start < level.length; start += WALK_PARALLEL) {
          const listings = await Promise.all(
            level.slice(start, start + WALK_PARALLEL).map(async (folder) => ({
              folder,
              list: (await client.call('folders.list', { username, folder: folder ?? undefined }, signal)).folders,
            })),
          );
          for (const { folder, list } of listings) {
            for (const entry of list) {
              const path = entry.path ?? childFolder(folder, entry.name);
              paths.push(path);
              // A daemon without folderCount holds no folder below the root.
              if ((entry.folderCount ?? 0) > 0) next.push(path);
            }
          }
        }
        level = next;
      }
      return paths;
    },
  });
}

/**
 * Every file of a user: the root's and each folder's listing at every depth, under the same
 * keys as the browser's (so live events and the browser's own changes refresh them). `files`
 * is complete once `pending` is false.
 */
export function useEveryFile(username: string) {
  const client = useClient();
  const folders = useEveryFolder(username);
  const places = [null, ...(folders.data ?? [])];
  return useQueries({
    queries: places.map((folder) => ({
      queryKey: queryKeys.files(username, folder),
      queryFn: async ({ signal }: { signal: AbortSignal }) =>
        folder === null
          ? (await client.call('files.list', { username }, signal)).files
          : (await client.call('folders.files', { username, folder }, signal)).files,
      enabled: folders.isSuccess,
    })),
    combine: (results) => ({
      files: results.flatMap((result) => result.data ?? []),
      pending: folders.isPending || results.some((result) => result.isPending),
      error: folders.error ?? results.find((result) => result.error)?.error ?? null,
    }),
  });
}

/** The folders directly inside `folder` (a path; null is the user's root). */
export function useFolders(username: string | null, folder: string | null = null) {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.folderList(username ?? '', folder),
    // Enabled only once there is a user.
    queryFn: async ({ signal }) =>
      (await client.call('folders.list', { username: username!, folder: folder ?? undefined }, signal)).folders,
    enabled: username !== null,
  });
}

/** The files at a user's root (folder null) or in one folder. */
export function useFiles(username: string | null, folder: string | null) {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.files(username ?? '', folder),
    // Enabled only once there is a user.
    queryFn: async ({ signal }) =>
      folder === null
        ? (await client.call('files.list', { username: username! }, signal)).files
        : (await client.call('folders.files', { username: username!, folder }, signal)).files,
    enabled: username !== null,
  });
}
