import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { CloudUpload, FolderOpen, SearchX } from 'lucide-react';
import type { FileEntry } from '../../../shared/types';
import { FILE_NAME_RULE, checkFileName } from '../../../shared/validation';
import { errorMessage } from '../../api/client';
import { useFiles, useFolders } from '../../hooks/queries';
import { useFileActions } from '../../hooks/useFileActions';
import type { LiveState } from '../../hooks/useLiveEvents';
import { copyText } from '../../lib/clipboard';
import { formatBytes, plural } from '../../lib/format';
import { fileRow, filterRows, folderRow, nextSort, sortRows, type Row, type Sort } from '../../lib/rows';
import { EMPTY_SELECTION, pruneSelection, type Selection } from '../../lib/selection';
import { useUploadQueue } from '../../upload/uploadsContext';
import { Breadcrumb } from '../Breadcrumb/Breadcrumb';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { DropZone } from '../DropZone/DropZone';
import { EmptyState } from '../EmptyState/EmptyState';
import { FileTable } from '../FileTable/FileTable';
import { NameDialog } from '../NameDialog/NameDialog';
import { useSession } from '../Session/sessionContext';
import { ShareDialog } from '../ShareDialog/ShareDialog';
import { StatusBar } from '../StatusBar/StatusBar';
import { Toolbar } from '../Toolbar/Toolbar';
import { DeleteSummary } from './DeleteSummary';
import './FileBrowser.css';

interface FileBrowserProps {
  username: string;
  folder: string | null;
  /** Put the keyboard focus on the file list once it shows (after moving between folders). */
  focusList?: boolean;
  live: LiveState;
  onOpenFolder: (folder: string | null) => void;
}

type DialogState = { kind: 'delete'; rows: Row[] } | { kind: 'share'; file: FileEntry; copied: boolean } | { kind: 'new-folder' } | null;

/** One directory of one user: toolbar, virtualised table, drop target, dialogs. */
export function FileBrowser({ username, folder, focusList = false, live, onOpenFolder }: FileBrowserProps) {
  const { bridge } = useSession();
  const folders = useFolders(username);
  const files = useFiles(username, folder);
  const actions = useFileActions(username, folder);
  const queue = useUploadQueue();
  const picker = useRef<HTMLInputElement>(null);
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<Sort>({ key: 'name', direction: 'asc' });
  const [rawSelection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const [editingKey, setEditingKey] = useState<string | null>(null);
  const [dialog, setDialog] = useState<DialogState>(null);

  const allRows = useMemo(() => {
    const fileRows = (files.data ?? []).map(fileRow);
    return folder === null ? [...(folders.data ?? []).map(folderRow), ...fileRows] : fileRows;
  }, [files.data, folders.data, folder]);
  const rows = useMemo(() => sortRows(filterRows(allRows, filter), sort), [allRows, filter, sort]);
  const selection = useMemo(
    () =>
      pruneSelection(
        rawSelection,
        rows.map((row) => row.key),
      ),
    [rawSelection, rows],
  );
  const selectedRows = useMemo(() => rows.filter((row) => selection.selected.has(row.key)), [rows, selection]);
  const singleFile = selectedRows.length === 1 && selectedRows[0].kind === 'file' ? selectedRows[0] : null;

  // The open folder was deleted (here or elsewhere): go back to the user's root.
  useEffect(() => {
    if (folder !== null && folders.data && !folders.data.some((entry) => entry.name === folder)) onOpenFolder(null);
  }, [folder, folders.data, onOpenFolder]);

  const upload = useCallback(
    (list: File[]) =>
      queue.add(
        list.map((file) => ({ name: file.name, body: file })),
        username,
        folder,
      ),
    [queue, username, folder],
  );

  const openShare = useCallback(
    async (row: Row) => {
      if (row.kind !== 'file') return;
      let file = row.file;
      if (!file.shared || !file.shareUrl) {
        const shared = await actions.share(file);
        if (!shared) return;
        file = shared;
      }
      const copied = file.shareUrl ? await copyText(file.shareUrl) : false;
      setDialog({ kind: 'share', file, copied });
    },
    [actions],
  );

  const onOpen = useCallback(
    (row: Row) => {
      if (row.kind === 'folder') onOpenFolder(row.name);
      else void actions.download([row]);
    },
    [actions, onOpenFolder],
  );
  const onStartRename = useCallback((row: Row) => row.kind === 'file' && setEditingKey(row.key), []);
  const onRenameCancel = useCallback(() => setEditingKey(null), []);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const onRenameCommit = useCallback(
    (row: Row, name: string) => {
      setEditingKey(null);
      const key = `f:${name}`;
      const only = (selected: string): Selection => ({ selected: new Set([selected]), anchor: selected, active: selected });
      // The selection follows the new name only once it is the file's: while the name belongs to
      // another file, selecting it would make the next Delete remove that other file.
      if (!rowsRef.current.some((other) => other.key === key)) setSelection(only(key));
      void actions.rename(row, name).then((file) => {
        const settled = file ? `f:${file.name}` : row.key;
        // Unless the person has moved on to other rows meanwhile.
        setSelection((current) => (current.active === key || current.active === row.key ? only(settled) : current));
      });
    },
    [actions],
  );
  const onDelete = useCallback(() => {
    if (selectedRows.length > 0) setDialog({ kind: 'delete', rows: selectedRows });
  }, [selectedRows]);

  const location = folder === null ? username : `${username} › ${folder}`;
  useEffect(() => {
    document.title = `${location} — Nimbus`;
  }, [location]);
  const fileCount = allRows.filter((row) => row.kind === 'file').length;
  const folderCount = allRows.length - fileCount;
  const totalBytes = allRows.reduce((sum, row) => sum + (row.kind === 'file' ? row.size : 0), 0);
  const summary = [
    folder === null ? plural(folderCount, 'folder') : null,
    plural(fileCount, 'file'),
    formatBytes(totalBytes),
    filter ? `${rows.length.toLocaleString()} shown` : null,
    selectedRows.length > 0 ? `${selectedRows.length.toLocaleString()} selected` : null,
  ]
    .filter(Boolean)
    .join(' · ');

  const loading = files.isPending || (folder === null && folders.isPending);

  // Opening a folder replaces the list that had the focus, which would leave it on <body> and
  // the keyboard dead: the new list takes it (or, with no list to show, this section).
  const sectionRef = useRef<HTMLElement>(null);
  const focusPending = useRef(focusList);
  useEffect(() => {
    if (!focusPending.current || loading) return;
    focusPending.current = false;
    const focused = document.activeElement;
    if (focused && focused !== document.body) return; // the person already moved on
    const section = sectionRef.current;
    (section?.querySelector<HTMLElement>('[role="grid"]') ?? section)?.focus({ preventScroll: true });
  }, [loading]);
  const onSectionKeyDown = (event: KeyboardEvent) => {
    // The list handles its own keys; this is for an empty folder, where the section has the focus.
    if (event.target !== event.currentTarget || folder === null) return;
    if (event.key === 'Backspace' || (event.key === 'ArrowUp' && event.altKey)) {
      event.preventDefault();
      onOpenFolder(null);
    }
  };
  let body;
  if (loading) {
    body = (
      <div className="browser__loading" role="status">
        Loading {location}…
      </div>
    );
  } else if (files.isError) {
    body = (
      <EmptyState
        icon={FolderOpen}
        title="Could not open this folder"
        action={
          <button type="button" className="button" onClick={() => void files.refetch()}>
            Try again
          </button>
        }
      >
        {errorMessage(files.error)}
      </EmptyState>
    );
  } else if (allRows.length === 0) {
    body = (
      <EmptyState
        icon={CloudUpload}
        title={folder === null ? 'No files yet' : 'This folder is empty'}
        action={
          <button type="button" className="button button--primary" onClick={() => picker.current?.click()}>
            Upload files
          </button>
        }
      >
        Drop files here or press Upload.
      </EmptyState>
    );
  } else if (rows.length === 0) {
    body = (
      <EmptyState icon={SearchX} title="Nothing matches">
        No names here contain “{filter}”.
      </EmptyState>
    );
  } else {
    body = (
      <FileTable
        label={`Files in ${location}`}
        rows={rows}
        selection={selection}
        onSelectionChange={setSelection}
        sort={sort}
        onSort={(key) => setSort((current) => nextSort(current, key))}
        editingKey={editingKey}
        onOpen={onOpen}
        onStartRename={onStartRename}
        onRenameCommit={onRenameCommit}
        onRenameCancel={onRenameCancel}
        onDelete={onDelete}
        onShareClick={(row) => void openShare(row)}
        onGoUp={folder === null ? undefined : () => onOpenFolder(null)}
      />
    );
  }

  return (
    <DropZone destination={location} onFiles={upload}>
      <section ref={sectionRef} className="browser" aria-label={`Storage of ${username}`} tabIndex={-1} onKeyDown={onSectionKeyDown}>
        <Toolbar
          breadcrumb={<Breadcrumb username={username} folder={folder} onOpenRoot={() => onOpenFolder(null)} />}
          filter={filter}
          onFilterChange={setFilter}
          onUpload={() => picker.current?.click()}
          onNewFolder={folder === null ? () => setDialog({ kind: 'new-folder' }) : undefined}
          selectedCount={selectedRows.length}
          canDownload={selectedRows.some((row) => row.kind === 'file')}
          canRename={singleFile !== null}
          canShare={singleFile !== null}
          onDownload={() => void actions.download(selectedRows)}
          onRename={() => singleFile && setEditingKey(singleFile.key)}
          onShare={() => singleFile && void openShare(singleFile)}
          onDelete={onDelete}
          onReveal={bridge && singleFile ? () => void bridge.revealFile(username, folder, singleFile.name) : undefined}
        />
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-label="Choose files to upload"
          onChange={(event) => {
            const list = Array.from(event.currentTarget.files ?? []);
            event.currentTarget.value = '';
            if (list.length > 0) upload(list);
          }}
        />
        {body}
        <StatusBar summary={summary} live={live} />
        {dialog?.kind === 'delete' ? (
          <ConfirmDialog
            title={dialog.rows.length === 1 ? `Delete “${dialog.rows[0].name}”?` : `Delete ${dialog.rows.length} items?`}
            confirmLabel="Delete"
            onConfirm={async () => {
              await actions.remove(dialog.rows);
              setSelection(EMPTY_SELECTION);
            }}
            onClose={() => setDialog(null)}
          >
            <DeleteSummary rows={dialog.rows} />
          </ConfirmDialog>
        ) : null}
        {dialog?.kind === 'share' ? (
          <ShareDialog
            file={dialog.file}
            copied={dialog.copied}
            onCopy={copyText}
            onUnshare={async () => {
              if (await actions.unshare(dialog.file)) setDialog(null);
            }}
            onClose={() => setDialog(null)}
          />
        ) : null}
        {dialog?.kind === 'new-folder' ? (
          <NameDialog
            title={`New folder in ${username}`}
            label="Folder name"
            rule={FILE_NAME_RULE}
            submitLabel="Create folder"
            validate={checkFileName}
            onSubmit={actions.createFolder}
            onClose={() => setDialog(null)}
          />
        ) : null}
      </section>
    </DropZone>
  );
}
