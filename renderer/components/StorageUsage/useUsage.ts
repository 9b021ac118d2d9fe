import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys';
import { useClient } from '../Session/sessionContext';

/**
 * `usage.get` for one user. Kept under the user's own key (`['users', name, …]`), so every
 * live event that makes the user stale — a file added or removed, the role's quota changed,
 * the trash changed — makes their usage stale too (renderer/api/queryKeys.ts).
 */
export function useUsage(username: string) {
  const client = useClient();
  return useQuery({
    queryKey: [...queryKeys.user(username), 'usage'],
    queryFn: async ({ signal }) => (await client.call('usage.get', { username }, signal)).usage,
  });
}
