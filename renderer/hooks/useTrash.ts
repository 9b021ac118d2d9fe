import { useMemo } from 'react';
import i18next from 'i18next';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import type { ResponseOf } from '../../shared/endpoints';
import type { TrashItem } from '../../shared/types';
import { queryKeys } from '../api/queryKeys';
import { useClient } from '../components/Session/sessionContext';

/** Items per request: a trash rarely holds more, and the list is not virtualised. */
export const TRASH_PAGE = 100;

/**
 * A user's trash, newest first, a page at a time (`trash.list` is paged). Live: the shell's
 * event stream makes it stale on `trash.changed` (renderer/api/queryKeys.ts).
 */
export function useTrash(username: string) {
  const client = useClient();
  const query = useInfiniteQuery({
    queryKey: queryKeys.trash(username),
    queryFn: async ({ pageParam, signal }) =>
      (await client.call('trash.list', { username, limit: TRASH_PAGE, offset: pageParam }, signal)).items,
    initialPageParam: 0,
    getNextPageParam: (last: TrashItem[], pages: TrashItem[][]) => (last.length < TRASH_PAGE ? undefined : pages.length * TRASH_PAGE),
  });
  const items = useMemo(() => dedupe(query.data?.pages.flat() ?? []), [query.data]);
  return { ...query, items };
}

/** Pages read at different moments may both hold an item that moved between them. */
function dedupe(items: TrashItem[]): TrashItem[] {
  const seen = new Set<string>();
  return items.filter((item) => (seen.has(item.id) ? false : (seen.add(item.id), true)));
}

/**
 * The trash's own changes. Each throws the daemon's ApiError (the view tells a 409 on restore
 * apart: the name is taken again); afterwards, whatever happened, the trash, the listings and
 * the usage are asked for again.
 */
export function useTrashActions(username: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  return useMemo(() => {
    const refresh = () =>
      Promise.all(
        [
          queryKeys.trash(username),
          queryKeys.allFiles(username),
          queryKeys.folders(username),
          queryKeys.searches(username),
          queryKeys.users,
          queryKeys.dash,
        ].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      );
    async function settled<T>(call: Promise<T>): Promise<T> {
      try {
        return await call;
      } finally {
        void refresh();
      }
    }
    return {
      // A copy beside a taken name is named in the person's language: "zpráva (obnoveno).txt".
      restore: (item: TrashItem, rename = false): Promise<ResponseOf<'trash.restore'>> =>
        settled(
          client.call('trash.restore', {
            username,
            id: item.id,
            rename: rename || undefined,
            suffix: rename ? i18next.t('trash:restoredWord') : undefined,
          }),
        ),
      remove: (item: TrashItem): Promise<ResponseOf<'trash.delete'>> => settled(client.call('trash.delete', { username, id: item.id })),
      empty: (): Promise<ResponseOf<'trash.empty'>> => settled(client.call('trash.empty', { username })),
    };
  }, [client, queryClient, username]);
}
