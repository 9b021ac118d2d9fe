import { useMemo } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ShareInfo } from '../../shared/types';
import { ApiError } from '../api/client';
import { queryKeys } from '../api/queryKeys';
import { linkName, type LinkTarget } from '../lib/shareLinks';
import { useClient } from '../components/Session/sessionContext';
import { useToast } from '../components/Toasts/toastContext';
import { useApiAction } from './useApiAction';

/** A folder's two links: its folder link (its tree to browse and download) and its upload link (a drop box). */
export type FolderLinkKind = 'folder' | 'upload';

/**
 * A user's links as the explorer and "Shared by me" act on them (docs/sharing.md): a folder's
 * link or upload link shown (made first when it has none), and any link revoked.
 */
export function useLinkActions(username: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  const toast = useToast();
  const run = useApiAction();
  const { t } = useTranslation();

  return useMemo(() => {
    const sharesKey = queryKeys.shares(username);
    const stale = [sharesKey, queryKeys.allFiles(username), queryKeys.folders(username), queryKeys.users];
    const fetchShares = () =>
      queryClient.fetchQuery({
        queryKey: sharesKey,
        queryFn: async ({ signal }) => (await client.call('shares.list', { username }, signal)).shares,
        staleTime: 0,
      });
    const find = (shares: readonly ShareInfo[], folder: string, kind: FolderLinkKind) =>
      shares.find((share) => share.kind === kind && share.folder === folder);

    return {
      /**
       * The folder's link of that kind: the one it has (asked of the daemon now, not an old list),
       * else a new one (`folders.share`, no options yet). Undefined when it failed (said in a toast).
       */
      async folderLink(folder: string, kind: FolderLinkKind): Promise<ShareInfo | undefined> {
        const name = linkName({ kind, folder, file: '' });
        return run(t(kind === 'upload' ? 'explorer:actions.uploadLinkFailed' : 'explorer:actions.shareFailed', { name }), async () => {
          const had = find(await fetchShares(), folder, kind);
          if (had) return had;
          try {
            const { share } = await client.call('folders.share', { username, folder, upload: kind === 'upload' || undefined });
            // Shown at once, before the list is asked for again.
            queryClient.setQueryData<ShareInfo[]>(sharesKey, (list) => [share, ...(list ?? []).filter((other) => other.url !== share.url)]);
            void queryClient.invalidateQueries({ queryKey: sharesKey });
            return share;
          } catch (error) {
            // Made meanwhile (another window, another device): that one.
            const made = error instanceof ApiError && error.code === 'already_shared' ? find(await fetchShares(), folder, kind) : undefined;
            if (made) return made;
            throw error;
          }
        });
      },

      /** Revokes a link of any kind: `files.noshare` for a file's, `folders.noshare` for a folder's or an upload link. */
      async unshare(link: LinkTarget): Promise<boolean> {
        const name = linkName(link);
        const upload = link.kind === 'upload';
        const done = await run(
          t(upload ? 'explorer:actions.removeUploadLinkFailed' : 'explorer:actions.unshareFailed', { name }),
          () =>
            link.kind === 'file'
              ? client.call('files.noshare', { username, folder: link.folder ?? undefined, file: link.file })
              : client.call('folders.noshare', { username, folder: link.folder ?? '', upload: upload || undefined }),
          stale,
        );
        if (!done) return false;
        if (upload) toast.success(t('explorer:actions.uploadLinkRemoved', { name }), t('explorer:actions.uploadLinkRemovedDetail'));
        else toast.success(t('explorer:actions.unshared', { name }), t('explorer:actions.unsharedDetail'));
        return true;
      },
    };
  }, [client, queryClient, run, t, toast, username]);
}
