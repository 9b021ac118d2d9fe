import { useMemo } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { FileEntry, Folder } from '../../shared/types';
import { ApiError, errorMessage } from '../api/client';
import { fetchObjectUrl, followDownloadLink, linkUrl, linksAreDirect, zipUrl } from '../api/links';
import { queryKeys } from '../api/queryKeys';
import { saveBlob } from '../lib/saveBlob';
import type { Row } from '../lib/rows';
import { useSession } from '../components/Session/sessionContext';
import { useToast } from '../components/Toasts/toastContext';
import { useApiAction } from './useApiAction';

/** What a delete left in the trash: what an Undo restores. */
export interface Deleted {
  removed: number;
  /** Trash items, in the order deleted (empty for a DaneeCloud-dialect key, which sees no ids). */
  trashIds: string[];
  names: string[];
}

/** One zip or file to hand to the browser: its link's parameters and the name it is saved under. */
export interface DownloadPlan {
  folder: string | null;
  /** A single file (no zip). */
  file?: string;
  /** Some files of `folder` as one zip; absent with `folder` set: that whole folder; both absent: the whole storage. */
  files?: string[];
  saveAs: string;
}

/**
 * How a selection downloads: one file as itself; several files as one zip; a folder as its zip;
 * everything at the root as the whole storage's zip. A selection of folders and root files gives
 * one zip per folder and one of the files (a zip names files of one place only).
 */
export function planDownload(rows: readonly Row[], username: string, folder: string | null, everything = false): DownloadPlan[] {
  const files = rows.filter((row) => row.kind === 'file').map((row) => row.name);
  const folders = rows.filter((row) => row.kind === 'folder').map((row) => row.name);
  if (folders.length === 0 && files.length === 1) return [{ folder, file: files[0], saveAs: files[0] }];
  if (folder === null && everything && folders.length > 0) return [{ folder: null, saveAs: `${username}.zip` }];
  const plans: DownloadPlan[] = folders.map((name) => ({ folder: name, saveAs: `${name}.zip` }));
  if (files.length > 0) plans.push({ folder, files, saveAs: `${folder ?? 'files'}.zip` });
  return plans;
}

/** The file and folder operations of one directory (a user's root or one folder). */
export function useFileActions(username: string, folder: string | null) {
  const session = useSession();
  const { client } = session;
  const direct = linksAreDirect(session);
  const queryClient = useQueryClient();
  const toast = useToast();
  const run = useApiAction();
  const { t } = useTranslation();

  return useMemo(() => {
    const stale = [queryKeys.files(username, folder), queryKeys.folders(username), queryKeys.users, queryKeys.dash];
    const where = { username, folder: folder ?? undefined };
    // A delete, restore, move or copy changes listings, the trash and the usage charts at once:
    // refresh whatever is on screen rather than guess every key.
    const refreshAll = () => queryClient.invalidateQueries();
    const targetName = (to: string | null) => to ?? username;

    /** Moves or copies each file to `to`, one by one (each failure named in its own toast). */
    async function transfer(kind: 'move' | 'copy', rows: readonly Row[], to: string | null): Promise<FileEntry[]> {
      const done: FileEntry[] = [];
      for (const row of rows) {
        if (row.kind !== 'file') continue;
        const id = kind === 'move' ? 'files.move' : 'files.copy';
        const result = await run(t(`explorer:actions.${kind}Failed`, { name: row.name }), () =>
          client.call(id, { ...where, file: row.name, to: to ?? undefined }),
        );
        if (result) done.push(result.file);
      }
      await refreshAll();
      if (done.length > 0) {
        toast.success(
          t(`explorer:actions.${kind === 'move' ? 'moved' : 'copied'}`, { count: done.length, name: done[0].name, target: targetName(to) }),
        );
      }
      return done;
    }

    const planUrl = (plan: DownloadPlan) =>
      plan.file
        ? linkUrl(client, 'files.download', { username, folder: plan.folder ?? undefined, file: plan.file })
        : zipUrl(client, username, plan.folder, plan.files);

    async function save(plan: DownloadPlan): Promise<void> {
      const url = planUrl(plan);
      if (direct) {
        followDownloadLink(url, plan.saveAs);
        return;
      }
      // A plain browser holding the key in the page: the link could not carry it.
      try {
        if (plan.file) {
          saveBlob(await client.download({ username, folder: plan.folder ?? undefined, file: plan.file }), plan.saveAs);
        } else {
          const objectUrl = await fetchObjectUrl(client, url);
          followDownloadLink(objectUrl, plan.saveAs);
          window.setTimeout(() => URL.revokeObjectURL(objectUrl), 60_000);
        }
      } catch (error) {
        toast.error(t('explorer:actions.downloadFailed', { name: plan.saveAs }), errorMessage(error));
      }
    }

    return {
      async rename(row: Row, newname: string): Promise<FileEntry | Folder | undefined> {
        if (row.kind === 'folder') {
          const result = await run(
            t('explorer:actions.renameFolderFailed', { name: row.name }),
            () => client.call('folders.rename', { username, folder: row.name, newname }),
            [queryKeys.folders(username), queryKeys.allFiles(username)],
          );
          return result?.folder;
        }
        const key = queryKeys.files(username, folder);
        // Show the new name at once; the refetch that follows settles it either way. Not over a
        // name another file has: that rename will fail, and two rows of one name would be one key.
        queryClient.setQueryData<FileEntry[]>(key, (files) =>
          files?.some((f) => f.name === newname) ? files : files?.map((f) => (f.name === row.name ? { ...f, name: newname } : f)),
        );
        const result = await run(
          t('explorer:actions.renameFailed', { name: row.name }),
          () => client.call('files.rename', { ...where, file: row.name, newname }),
          stale,
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
                  client.call('folders.delete', { username, folder: row.name }),
                )
              : await run(t('explorer:actions.deleteFailed', { name: row.name }), () =>
                  client.call('files.delete', { ...where, file: row.name }),
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
       * beside it ("name (restored)") rather than refused: an Undo should never lose the file.
       */
      async restore(trashIds: readonly string[]): Promise<number> {
        let restored = 0;
        let gone = 0;
        for (const id of trashIds) {
          // Restored from the Trash view meanwhile, or deleted for good: nothing left to undo, not a failure.
          const result = await run(t('explorer:actions.restoreFailed'), () =>
            client.call('trash.restore', { username, id, rename: true }).catch((error: unknown) => {
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

      /** Plain links the browser streams (docs/explorer.md, "Links"): a file, or a zip. */
      async download(rows: readonly Row[], everything = false): Promise<void> {
        for (const plan of planDownload(rows, username, folder, everything)) await save(plan);
      },

      /**
       * The one plain link that downloads `rows` (a file, or one zip), for an `<a href download>`;
       * null when it takes several downloads or the page must fetch with its key.
       */
      downloadLink(rows: readonly Row[], everything = false): { href: string; saveAs: string } | null {
        const plans = planDownload(rows, username, folder, everything);
        return direct && plans.length === 1 ? { href: planUrl(plans[0]), saveAs: plans[0].saveAs } : null;
      },

      async share(file: FileEntry): Promise<FileEntry | undefined> {
        const result = await run(
          t('explorer:actions.shareFailed', { name: file.name }),
          () => client.call('files.share', { ...where, file: file.name }),
          stale,
        );
        return result?.file;
      },

      async unshare(file: FileEntry): Promise<boolean> {
        const result = await run(
          t('explorer:actions.unshareFailed', { name: file.name }),
          () => client.call('files.noshare', { ...where, file: file.name }),
          stale,
        );
        if (result) toast.success(t('explorer:actions.unshared', { name: file.name }), t('explorer:actions.unsharedDetail'));
        return result !== undefined;
      },

      async createFolder(name: string): Promise<boolean> {
        const result = await run(
          t('explorer:actions.createFolderFailed', { name }),
          () => client.call('folders.create', { username, folder: name }),
          [queryKeys.folders(username), queryKeys.dash],
        );
        return result !== undefined;
      },
    };
  }, [client, direct, queryClient, toast, run, t, username, folder]);
}
