import { useCallback, useMemo, type Dispatch, type RefObject, type SetStateAction } from 'react';
import { useTranslation } from 'react-i18next';
import type { FileEntry } from '../../../shared/types';
import type { useFileActions } from '../../hooks/useFileActions';
import { useLinkActions, type FolderLinkKind } from '../../hooks/useLinkActions';
import { copyText } from '../../lib/clipboard';
import { childFolder } from '../../lib/places';
import type { Row } from '../../lib/rows';
import { EMPTY_SELECTION, type Selection } from '../../lib/selection';
import { useCanWrite, useSession } from '../Session/sessionContext';
import { useToast } from '../Toasts/toastContext';
import type { DialogState } from './BrowserDialogs';
import type { ActionCommands } from './fileActions';

/** The files the previewer pages through, and the one it shows. */
export interface PreviewState {
  files: FileEntry[];
  index: number;
}

interface CommandOptions {
  username: string;
  folder: string | null;
  actions: ReturnType<typeof useFileActions>;
  rowsRef: RefObject<readonly Row[]>;
  onOpenFolder: (folder: string | null) => void;
  /** Leaves the search for a file's folder, with the file selected ("Open containing folder"). */
  onShowFile: (file: FileEntry) => void;
  onStartRename: (row: Row) => void;
  setDialog: Dispatch<SetStateAction<DialogState>>;
  setPreview: Dispatch<SetStateAction<PreviewState | null>>;
  setSelection: Dispatch<SetStateAction<Selection>>;
}

/** What the file actions run in the file browser (fileActions.ts), and the open, preview, share and delete they build on. */
export function useBrowserCommands(options: CommandOptions) {
  const { username, folder, actions, rowsRef, onOpenFolder, onShowFile, onStartRename, setDialog, setPreview, setSelection } = options;
  const { t } = useTranslation();
  const { bridge } = useSession();
  const canWrite = useCanWrite();
  const toast = useToast();
  const links = useLinkActions(username);

  /** A folder's link of that kind (made first when it has none), copied and shown. */
  const openFolderLink = useCallback(
    async (row: Row, kind: FolderLinkKind) => {
      if (row.kind !== 'folder') return;
      const share = await links.folderLink(row.folder.path ?? childFolder(folder, row.name), kind);
      if (!share) return;
      setDialog({ kind: 'share', link: share, copied: await copyText(share.url) });
    },
    [folder, links, setDialog],
  );

  /**
   * A file's link, shared first when it is not yet, copied and shown; on a folder, its folder link
   * (or, from the tag of a folder that has only an upload link, that one).
   */
  const openShare = useCallback(
    async (row: Row) => {
      if (row.kind === 'folder') return openFolderLink(row, row.links.upload && !row.links.folder ? 'upload' : 'folder');
      let file = row.file;
      if (!file.shared || !file.shareUrl) {
        const shared = await actions.share(file);
        if (!shared) return;
        file = shared;
      }
      const url = file.shareUrl ?? '';
      const copied = url ? await copyText(url) : false;
      setDialog({ kind: 'share', link: { kind: 'file', url, folder: file.folder, file: file.name }, copied });
    },
    [actions, openFolderLink, setDialog],
  );

  const onPreview = useCallback(
    (row: Row) => {
      if (row.kind !== 'file') return;
      const list = rowsRef.current.flatMap((other) => (other.kind === 'file' ? [other.file] : []));
      setPreview({
        files: list,
        index: Math.max(
          0,
          list.findIndex((file) => file.name === row.name),
        ),
      });
    },
    [rowsRef, setPreview],
  );
  const onOpen = useCallback(
    (row: Row) => {
      if (row.kind === 'folder') onOpenFolder(row.folder.path ?? childFolder(folder, row.name));
      else onPreview(row);
    },
    [folder, onOpenFolder, onPreview],
  );

  const confirmDelete = useCallback(
    async (doomed: readonly Row[]) => {
      const deleted = await actions.remove(doomed);
      setSelection(EMPTY_SELECTION);
      if (deleted.removed === 0) return;
      const { trashIds } = deleted;
      toast.show({
        kind: 'success',
        title: t('explorer:delete.done', { count: deleted.removed, name: deleted.names[0] }),
        action: trashIds.length > 0 ? { label: t('explorer:delete.undo'), run: () => void actions.restore(trashIds) } : undefined,
      });
    },
    [actions, setSelection, toast, t],
  );

  const commands = useMemo<ActionCommands>(
    () => ({
      open: onOpen,
      download: (target) => void actions.download(target.rows, target.everything),
      downloadLink: (target) => actions.downloadLink(target.rows, target.everything),
      rename: onStartRename,
      edit: (row) => setDialog({ kind: 'edit', file: row.file }),
      move: (rows) => setDialog({ kind: 'transfer', mode: 'move', rows: [...rows] }),
      copy: (rows) => setDialog({ kind: 'transfer', mode: 'copy', rows: [...rows] }),
      share: (row) => void openShare(row),
      uploadLink: (row) => void openFolderLink(row, 'upload'),
      versions: (row) => setDialog({ kind: 'versions', file: row.file }),
      reveal: (row) => void bridge?.revealFile(username, row.file.folder, row.name),
      openFolder: (row) => onShowFile(row.file),
      // The Delete key reaches here from the list and the search results alike: a read key's would be refused.
      remove: (rows) => {
        if (canWrite) setDialog({ kind: 'delete', rows: [...rows] });
      },
    }),
    [actions, bridge, canWrite, onOpen, onShowFile, onStartRename, openFolderLink, openShare, setDialog, username],
  );

  return { commands, openShare, onOpen, onPreview, confirmDelete, inShell: bridge !== null };
}
