import { useMemo } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { FileEntry } from '../../shared/types';
import { errorMessage } from '../api/client';
import { queryKeys } from '../api/queryKeys';
import { saveBlob } from '../lib/saveBlob';
import type { Row } from '../lib/rows';
import { useClient } from '../components/Session/sessionContext';
import { useToast } from '../components/Toasts/toastContext';
import { useApiAction } from './useApiAction';

/** The file and folder operations of one directory (a user's root or one folder). */
export function useFileActions(username: string, folder: string | null) {
  const client = useClient();
  const queryClient = useQueryClient();
  const toast = useToast();
  const run = useApiAction();

  return useMemo(() => {
    const stale = [queryKeys.files(username, folder), queryKeys.folders(username), queryKeys.users, queryKeys.dash];
    const where = { username, folder: folder ?? undefined };

    return {
      async rename(row: Row, newname: string): Promise<FileEntry | undefined> {
        const key = queryKeys.files(username, folder);
        // Show the new name at once; the refetch that follows settles it either way. Not over a
        // name another file has: that rename will fail, and two rows of one name would be one key.
        queryClient.setQueryData<FileEntry[]>(key, (files) =>
          files?.some((f) => f.name === newname) ? files : files?.map((f) => (f.name === row.name ? { ...f, name: newname } : f)),
        );
        const result = await run(
          `Could not rename “${row.name}”`,
          () => client.call('files.rename', { ...where, file: row.name, newname }),
          stale,
        );
        return result?.file;
      },

      async remove(rows: readonly Row[]): Promise<number> {
        let removed = 0;
        for (const row of rows) {
          const done =
            row.kind === 'folder'
              ? await run(`Could not delete the folder “${row.name}”`, () => client.call('folders.delete', { username, folder: row.name }))
              : await run(`Could not delete “${row.name}”`, () => client.call('files.delete', { ...where, file: row.name }));
          if (done) removed += 1;
        }
        await Promise.all([...stale, queryKeys.allFiles(username)].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
        if (removed > 0) toast.success(removed === 1 ? `Deleted “${rows[0].name}”` : `Deleted ${removed} items`);
        return removed;
      },

      async download(rows: readonly Row[]): Promise<void> {
        for (const row of rows) {
          if (row.kind !== 'file') continue;
          try {
            saveBlob(await client.download({ ...where, file: row.name }), row.name);
          } catch (error) {
            toast.error(`Could not download “${row.name}”`, errorMessage(error));
          }
        }
      },

      async share(file: FileEntry): Promise<FileEntry | undefined> {
        const result = await run(`Could not share “${file.name}”`, () => client.call('files.share', { ...where, file: file.name }), stale);
        return result?.file;
      },

      async unshare(file: FileEntry): Promise<boolean> {
        const result = await run(
          `Could not stop sharing “${file.name}”`,
          () => client.call('files.noshare', { ...where, file: file.name }),
          stale,
        );
        if (result) toast.success(`“${file.name}” is no longer shared`, 'Its link no longer works.');
        return result !== undefined;
      },

      async createFolder(name: string): Promise<boolean> {
        const result = await run(`Could not create the folder “${name}”`, () => client.call('folders.create', { username, folder: name }), [
          queryKeys.folders(username),
          queryKeys.dash,
        ]);
        return result !== undefined;
      },
    };
  }, [client, queryClient, toast, run, username, folder]);
}
