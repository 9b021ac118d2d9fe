import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../api/queryKeys';
import { useClient } from '../components/Session/sessionContext';

export function useUsers() {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.users, queryFn: ({ signal }) => client.call('user.all', {}, signal) });
}

export function useRoles() {
  const client = useClient();
  return useQuery({ queryKey: queryKeys.roles, queryFn: ({ signal }) => client.call('role.all', {}, signal) });
}

/** The daemon's status; asked for often while the daemon seems gone, so its return shows soon. */
export function useDash(doubtful = false) {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.dash,
    queryFn: ({ signal }) => client.call('dash.get', {}, signal),
    refetchInterval: doubtful ? 3_000 : 30_000,
  });
}

export function useFolders(username: string | null) {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.folders(username ?? ''),
    // Enabled only once there is a user.
    queryFn: async ({ signal }) => (await client.call('folders.list', { username: username! }, signal)).folders,
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
