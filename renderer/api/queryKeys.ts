import type { QueryKey } from '@tanstack/react-query';
import type { ChangeEvent } from '../../shared/types';

/** Every query key the UI uses; prefixes invalidate whole groups. */
export const queryKeys = {
  users: ['users'] as const,
  /** One user's record: under `users`, so whatever makes the list stale makes it stale too. */
  user: (username: string) => ['users', username] as const,
  /** The caller's own sessions and keys (Settings). */
  sessions: ['sessions'] as const,
  keys: ['keys'] as const,
  roles: ['roles'] as const,
  role: (name: string) => ['roles', name] as const,
  dash: ['dash'] as const,
  /** Every folder listing of a user (a prefix), and the listing of the folders directly inside one folder (null: the root). */
  folders: (username: string) => ['folders', username] as const,
  folderList: (username: string, folder: string | null) => ['folders', username, folder ?? ''] as const,
  /** The path of every folder of a user, the whole tree walked (an object: no folder path can be one). */
  everyFolder: (username: string) => ['folders', username, { every: true }] as const,
  /** One level of the sidebar's folder tree: its own key, as a folder gone meanwhile lists there as empty, not as an error. */
  folderTree: (username: string, folder: string | null) => ['folders', username, { tree: folder ?? '' }] as const,
  allFiles: (username: string) => ['files', username] as const,
  files: (username: string, folder: string | null) => ['files', username, folder ?? ''] as const,
  /**
   * A file's earlier versions (files.versions), under its folder's listing: a version publishes
   * no event, but the upload that keeps one changes the file, and that event refreshes these too.
   */
  versions: (username: string, folder: string | null, file: string) => ['files', username, folder ?? '', { versions: file }] as const,
  /** A user's trash (trash.list). */
  trash: (username: string) => ['trash', username] as const,
  /** Every search of a user's (made stale by any change of their files), and one of them. */
  searches: (username: string) => ['search', username] as const,
  search: (username: string, q: string) => ['search', username, q] as const,
  /** A user's share links with their options, downloads and state (shares.list). */
  shares: (username: string) => ['shares', username] as const,
};

/** The queries a live change event makes stale. */
export function keysForEvent(event: ChangeEvent): QueryKey[] {
  const user = event.username;
  switch (event.type) {
    case 'file.added':
    case 'file.changed':
    case 'file.removed':
    case 'share.changed':
      // A link follows its file when it is renamed or moved, and goes with it when it is deleted: the links too.
      if (!user) return [['files'], ['folders'], ['search'], ['shares'], queryKeys.users, queryKeys.dash];
      return [
        queryKeys.files(user, event.folder),
        queryKeys.folders(user),
        queryKeys.searches(user),
        queryKeys.shares(user),
        queryKeys.users,
        queryKeys.dash,
      ];
    case 'folder.added':
    case 'folder.removed':
    // A move: the `folders` prefix covers the old and the new parent's listings, `allFiles` those inside it.
    case 'folder.moved':
      if (!user) return [['files'], ['folders'], ['search'], ['shares'], queryKeys.users, queryKeys.dash];
      return [
        queryKeys.folders(user),
        queryKeys.allFiles(user),
        queryKeys.searches(user),
        queryKeys.shares(user),
        queryKeys.users,
        queryKeys.dash,
      ];
    case 'user.changed':
    case 'user.removed':
      return [queryKeys.users, queryKeys.dash];
    case 'role.changed':
      return [queryKeys.roles, queryKeys.users];
    case 'trash.changed':
      // The trash's bytes count against the quota: the user's usage changes with it.
      if (!user) return [['trash'], queryKeys.users, queryKeys.dash];
      return [queryKeys.trash(user), queryKeys.users, queryKeys.dash];
    case 'index.state':
      return [[]];
    default:
      return [queryKeys.dash];
  }
}
