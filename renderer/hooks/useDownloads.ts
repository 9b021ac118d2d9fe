import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../api/client';
import { fetchObjectUrl, followDownloadLink, linkUrl, linksAreDirect, zipUrl } from '../api/links';
import { saveBlob } from '../lib/saveBlob';
import type { Row } from '../lib/rows';
import { useSession } from '../components/Session/sessionContext';
import { useToast } from '../components/Toasts/toastContext';
import { childFolder, folderName } from '../lib/places';

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
  // A folder by its path (the row's own, or its name inside this one); a zip is named after the folder itself.
  const folders = rows.flatMap((row) => (row.kind === 'folder' ? [row.folder.path ?? childFolder(folder, row.name)] : []));
  // One file downloads as itself, from its own folder (a search result is not in `folder`).
  const [only] = rows;
  if (rows.length === 1 && only.kind === 'file') return [{ folder: only.file.folder, file: only.name, saveAs: only.name }];
  if (folder === null && everything && folders.length > 0) return [{ folder: null, saveAs: `${username}.zip` }];
  const plans: DownloadPlan[] = folders.map((path) => ({ folder: path, saveAs: `${folderName(path)}.zip` }));
  if (files.length > 0) plans.push({ folder, files, saveAs: `${folder === null ? 'files' : folderName(folder)}.zip` });
  return plans;
}

/** Downloads from one directory (a user's root or one folder): plain links the browser streams (docs/explorer.md, "Links"). */
export function useDownloads(username: string, folder: string | null) {
  const session = useSession();
  const { client } = session;
  const direct = linksAreDirect(session);
  const toast = useToast();
  const { t } = useTranslation();

  return useMemo(() => {
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
      /** A file, or a zip: each plan in turn. */
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
    };
  }, [client, direct, toast, t, username, folder]);
}
