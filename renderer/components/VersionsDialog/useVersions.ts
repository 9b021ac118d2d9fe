import { useCallback } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { FileEntry, FileVersion } from '../../../shared/types';
import { ERROR_SHOWN_IN_PLACE } from '../../api/loadErrors';
import { queryKeys } from '../../api/queryKeys';
import { formatDateTime } from '../../lib/format';
import { useClient } from '../Session/sessionContext';
import { useToast } from '../Toasts/toastContext';
import { restoreFailure } from './versionErrors';

/** A file's earlier versions, newest first (files.versions). */
export function useVersions(username: string, folder: string | null, file: string) {
  const client = useClient();
  return useQuery({
    queryKey: queryKeys.versions(username, folder, file),
    queryFn: async ({ signal }) => (await client.call('files.versions', { username, folder: folder ?? undefined, file }, signal)).versions,
    // Keeping a version publishes no event of its own: asked for again whenever the panel opens.
    refetchOnMount: 'always',
    meta: ERROR_SHOWN_IN_PLACE, // the dialog says it, with a Retry
  });
}

/**
 * Makes a version the file's content again (files.versions.restore), says how it went in a
 * toast, then has the versions, the folder and the usage asked for again (the file's own
 * `file.changed` event would too, a moment later). Answers the file as it now is, or null.
 */
export function useRestoreVersion(username: string, folder: string | null, file: string) {
  const client = useClient();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { t } = useTranslation();
  return useCallback(
    async (version: FileVersion): Promise<FileEntry | null> => {
      const when = formatDateTime(version.keptAt);
      try {
        const answer = await client.call('files.versions.restore', { username, folder: folder ?? undefined, file, id: version.id });
        toast.success(t('versions:restore.done', { name: file, when }), t('versions:restore.doneDetail'));
        return answer.file;
      } catch (error) {
        const usage = async () => (await client.call('usage.get', { username })).usage;
        toast.error(t('versions:restore.failed', { name: file }), await restoreFailure(error, version, usage));
        return null;
      } finally {
        // The folder's key covers the versions' (queryKeys.versions); versions count in the usage.
        const stale = [queryKeys.files(username, folder), queryKeys.folders(username), queryKeys.searches(username), queryKeys.users];
        await Promise.all(stale.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      }
    },
    [client, queryClient, toast, t, username, folder, file],
  );
}
