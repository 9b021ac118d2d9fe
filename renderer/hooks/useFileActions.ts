import { useMemo } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { EndpointId } from '../../shared/endpoints';
import type { FileEntry, Folder } from '../../shared/types';
import { ApiError, errorMessage } from '../api/client';
import { queryKeys } from '../api/queryKeys';
import { childFolder } from '../lib/places';
import type { Row } from '../lib/rows';
import { useClient } from '../components/Session/sessionContext';
import { useToast } from '../components/Toasts/toastContext';
import { useApiAction } from './useApiAction';
import { useDownloads } from './useDownloads';

/**
 * The endpoint that moves or copies a folder with its subtree, the one place the explorer names
 * it (FileBrowser/fileActions.ts reads it: an action set to null is offered for files only).
 */
export const FOLDER_TRANSFER = { move: 'folders.move', copy: 'folders.copy' } as const satisfies Record<'move' | 'copy', EndpointId | null>;

/** The daemon's codes for a new name that is taken (exactly, by a folder, or but for case). */
export const NAME_CLASHES: ReadonlySet<string> = new Set(['file_exists', 'folder_exists', 'name_case_conflict']);

/** What a delete left in the trash: what an Undo restores. */
export interface Deleted {
  removed: number;
  /** Trash items, in the order deleted (empty for a DaneeCloud-dialect key, which sees no ids). */
  trashIds: string[];
  names: string[];
}

/** The file and folder operations of one directory (a user's root or one folder), downloads included (useDownloads.ts). */
export function useFileActions(username: string, folder: string | null) {
  const client = useClient();
  const downloads = useDownloads(username, folder);
  const queryClient = useQueryClient();
  const toast = useToast();
  const run = useApiAction();
  const { t } = useTranslation();

  return useMemo(() => {
    const stale = [
      queryKeys.files(username, folder),
      queryKeys.folders(username),
      queryKeys.shares(username),
      queryKeys.users,
      queryKeys.dash,
    ];
    // A file is acted on in its own folder (its entry says which): a search result is not in the one open.
    const at = (file: FileEntry) => ({ username, folder: file.folder ?? undefined });
    // A delete, restore, move or copy changes listings, the trash and the usage charts at once:
    // refresh whatever is on screen rather than guess every key.
    const refreshAll = () => queryClient.invalidateQueries();
    const targetName = (to: string | null) => to ?? username;

    /** Moves or copies each file and folder to `to`, one by one (each failure named in its own toast). */
    async function transfer(kind: 'move' | 'copy', rows: readonly Row[], to: string | null): Promise<(FileEntry | Folder)[]> {
      const done: (FileEntry | Folder)[] = [];
      for (const row of rows) {
        if (row.kind === 'folder') {
          const id = FOLDER_TRANSFER[kind];
          if (id === null) continue;
          const result = await run(t(`explorer:actions.${kind}Failed`, { name: row.name }), () =>
            client.call(id, { username, folder: row.folder.path ?? childFolder(folder, row.name), to: to ?? undefined }),
          );
          if (result) done.push(result.folder);
          continue;
        }
        const id = kind === 'move' ? 'files.move' : 'files.copy';
        const result = await run(t(`explorer:actions.${kind}Failed`, { name: row.name }), () =>
          client.call(id, { ...at(row.file), file: row.name, to: to ?? undefined }),
        );
        if (result) done.push(result.file);
      }
      await refreshAll();
      if (done.length > 0) {
        toast.success(
          t(`explorer:actions.${kind === 'move' ? 'moved' : 'copied'}${rows.some((row) => row.kind === 'folder') ? 'Items' : ''}`, {
            count: done.length,
            name: done[0].name,
            target: targetName(to),
          }),
        );
      }
      return done;
    }

    return {
      /**
       * Renames a file or folder. With `onClash`, a name that is taken (NAME_CLASHES) is handed to
       * it, in the person's words, instead of a toast: the inline editor says it where it was typed.
       */
      async rename(row: Row, newname: string, onClash?: (reason: string) => void): Promise<FileEntry | Folder | undefined> {
        const clashes =
          <T>(call: () => Promise<T>) =>
          async (): Promise<T | undefined> => {
            try {
              return await call();
            } catch (error) {
              if (!onClash || !(error instanceof ApiError) || !NAME_CLASHES.has(error.code)) throw error;
              onClash(errorMessage(error));
              return undefined;
            }
          };
        if (row.kind === 'folder') {
          const result = await run(
            t('explorer:actions.renameFolderFailed', { name: row.name }),
            clashes(() => client.call('folders.rename', { username, folder: row.folder.path ?? row.name, newname })),
            [queryKeys.folders(username), queryKeys.allFiles(username)],
          );
          return result?.folder;
        }
        const key = queryKeys.files(username, row.file.folder);
        // Show the new name at once; the refetch that follows settles it either way. Not over a
        // name another file has: that rename will fail, and two rows of one name would be one key.
        queryClient.setQueryData<FileEntry[]>(key, (files) =>
          files?.some((f) => f.name === newname) ? files : files?.map((f) => (f.name === row.name ? { ...f, name: newname } : f)),
        );
        const result = await run(
          t('explorer:actions.renameFailed', { name: row.name }),
          clashes(() => client.call('files.rename', { ...at(row.file), file: row.name, newname })),
          [...stale, key, queryKeys.searches(username)],
        );
        return result?.file;
      },

      /** Deletes to the trash; answers what an Undo needs. */
      async remove(rows: readonly Row[]): Promise<Deleted> {
        const deleted: Deleted = { removed: 0, trashIds: [], names: [] };
        for (const row of rows) {
          const done =
            row.kind === 'folder'
              ? await run(t('explorer:actions.deleteFolderFailed', { name: row.name }), () =>
                  client.call('folders.delete', { username, folder: row.folder.path ?? row.name }),
                )
              : await run(t('explorer:actions.deleteFailed', { name: row.name }), () =>
                  client.call('files.delete', { ...at(row.file), file: row.name }),
                );
          if (!done) continue;
          deleted.removed += 1;
          deleted.names.push(row.name);
          if (typeof done.trashId === 'string') deleted.trashIds.push(done.trashId);
        }
        await refreshAll();
        return deleted;
      },

      /**
       * Undo of a delete: every item back where it was. A name taken again meanwhile is restored
       * beside it ("name (restored)", the word in the person's language) rather than refused: an Undo should never lose the file.
       */
      async restore(trashIds: readonly string[]): Promise<number> {
        let restored = 0;
        let gone = 0;
        for (const id of trashIds) {
          // Restored from the Trash view meanwhile, or deleted for good: nothing left to undo, not a failure.
          const result = await run(t('explorer:actions.restoreFailed'), () =>
            client.call('trash.restore', { username, id, rename: true, suffix: t('trash:restoredWord') }).catch((error: unknown) => {
              if (error instanceof ApiError && error.code === 'trash_item_not_found') {
                gone += 1;
                return null;
              }
              throw error;
            }),
          );
          if (result) restored += 1;
        }
        await refreshAll();
        if (restored > 0) toast.success(t('explorer:actions.restored', { count: restored }));
        else if (gone > 0) toast.show({ kind: 'info', title: t('explorer:actions.alreadyGone', { count: gone }) });
        return restored;
      },

      move: (rows: readonly Row[], to: string | null) => transfer('move', rows, to),
      copy: (rows: readonly Row[], to: string | null) => transfer('copy', rows, to),

      ...downloads,

      async share(file: FileEntry): Promise<FileEntry | undefined> {
        const result = await run(
          t('explorer:actions.shareFailed', { name: file.name }),
          () => client.call('files.share', { ...at(file), file: file.name }),
          [...stale, queryKeys.files(username, file.folder), queryKeys.searches(username)],
        );
        return result?.file;
      },

      async createFolder(name: string): Promise<boolean> {
        const result = await run(
          t('explorer:actions.createFolderFailed', { name }),
          () => client.call('folders.create', { username, folder: childFolder(folder, name) }),
          [queryKeys.folders(username), queryKeys.dash],
        );
        return result !== undefined;
      },
    };
  }, [client, downloads, queryClient, toast, run, t, username, folder]);
}
