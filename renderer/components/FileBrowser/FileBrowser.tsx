import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { CloudUpload, FolderOpen } from 'lucide-react';
import type { FileEntry } from '../../../shared/types';
import { errorMessage } from '../../api/client';
import { useFiles, useFolders } from '../../hooks/queries';
import { useFileActions } from '../../hooks/useFileActions';
import type { LiveState } from '../../hooks/useLiveEvents';
import { copyText } from '../../lib/clipboard';
import { formatBytes } from '../../lib/format';
import { fileRow, folderRow, nextSort, sortRows, type Row, type Sort } from '../../lib/rows';
import { EMPTY_SELECTION, pruneSelection, type Selection } from '../../lib/selection';
import { useUploadQueue } from '../../upload/uploadsContext';
import { Breadcrumb } from '../Breadcrumb/Breadcrumb';
import { ContextMenu } from '../ContextMenu/ContextMenu';
import { DropZone } from '../DropZone/DropZone';
import { EmptyState } from '../EmptyState/EmptyState';
import { FileGrid } from '../FileGrid/FileGrid';
import { FileTable } from '../FileTable/FileTable';
import { ROWS_DRAG_TYPE, draggedNames } from '../FileTable/rowEvents';
import { PreviewViewer } from '../Preview/PreviewViewer';
import { SearchView } from '../SearchView/SearchView';
import { useSession } from '../Session/sessionContext';
import { StatusBar } from '../StatusBar/StatusBar';
import { useToast } from '../Toasts/toastContext';
import { Toolbar } from '../Toolbar/Toolbar';
import { BrowserDialogs, type DialogState } from './BrowserDialogs';
import { menuItems } from './menuItems';
import { useDebounced } from './useDebounced';
import { useViewMode } from './viewMode';
import './FileBrowser.css';

interface FileBrowserProps {
  username: string;
  folder: string | null;
  /** Put the keyboard focus on the file list once it shows (after moving between folders). */
  focusList?: boolean;
  live: LiveState;
  onOpenFolder: (folder: string | null) => void;
}

const SEARCH_DELAY_MS = 200;

/** One directory of one user: toolbar, list or grid, search, context menu, previews, drop target, dialogs. */
export function FileBrowser({ username, folder, focusList = false, live, onOpenFolder }: FileBrowserProps) {
  const { t } = useTranslation();
  const { bridge } = useSession();
  const toast = useToast();
  const folders = useFolders(username);
  const files = useFiles(username, folder);
  const actions = useFileActions(username, folder);
  const queue = useUploadQueue();
  const picker = useRef<HTMLInputElement>(null);
  const [view, setView] = useViewMode(username);
  const [search, setSearch] = useState('');
  const query = useDebounced(search.trim(), SEARCH_DELAY_MS);
  const [sort, setSort] = useState<Sort>({ key: 'name', direction: 'asc' });
  const [rawSelection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const [editingKey, setEditingKey] = useState<string | null>(null);
  const [dialog, setDialog] = useState<DialogState>(null);
  const [menu, setMenu] = useState<{ rows: Row[]; position: { x: number; y: number } } | null>(null);
  const [preview, setPreview] = useState<{ files: FileEntry[]; index: number } | null>(null);

  const allRows = useMemo(() => {
    const fileRows = (files.data ?? []).map(fileRow);
    return folder === null ? [...(folders.data ?? []).map(folderRow), ...fileRows] : fileRows;
  }, [files.data, folders.data, folder]);
  const rows = useMemo(() => sortRows(allRows, sort), [allRows, sort]);
  const selection = useMemo(
    () =>
      pruneSelection(
        rawSelection,
        rows.map((row) => row.key),
      ),
    [rawSelection, rows],
  );
  const selectedRows = useMemo(() => rows.filter((row) => selection.selected.has(row.key)), [rows, selection]);
  const single = selectedRows.length === 1 ? selectedRows[0] : null;
  const singleFile = single?.kind === 'file' ? single : null;
  const onlyFiles = selectedRows.length > 0 && selectedRows.every((row) => row.kind === 'file');
  const everything = selectedRows.length === rows.length;

  // The open folder was deleted (here or elsewhere): go back to the user's root.
  useEffect(() => {
    if (folder !== null && folders.data && !folders.data.some((entry) => entry.name === folder)) onOpenFolder(null);
  }, [folder, folders.data, onOpenFolder]);

  const sectionRef = useRef<HTMLElement>(null);
  /** Back to the list (after a menu, a preview, a dialog): focus never drops to the page. */
  const refocusList = useCallback(() => {
    const section = sectionRef.current;
    (section?.querySelector<HTMLElement>('[role="grid"]') ?? section)?.focus({ preventScroll: true });
  }, []);

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

  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const onPreview = useCallback((row: Row) => {
    if (row.kind !== 'file') return;
    const list = rowsRef.current.flatMap((other) => (other.kind === 'file' ? [other.file] : []));
    setPreview({
      files: list,
      index: Math.max(
        0,
        list.findIndex((file) => file.name === row.name),
      ),
    });
  }, []);
  const onOpen = useCallback(
    (row: Row) => {
      if (row.kind === 'folder') onOpenFolder(row.name);
      else onPreview(row);
    },
    [onOpenFolder, onPreview],
  );
  const onStartRename = useCallback((row: Row) => setEditingKey(row.key), []);
  const onRenameCancel = useCallback(() => setEditingKey(null), []);
  const onRenameCommit = useCallback(
    (row: Row, name: string) => {
      setEditingKey(null);
      const key = `${row.kind === 'folder' ? 'd' : 'f'}:${name}`;
      const only = (selected: string): Selection => ({ selected: new Set([selected]), anchor: selected, active: selected });
      // The selection follows the new name only once it is the row's: while the name belongs to
      // another row, selecting it would make the next Delete remove that other one.
      if (!rowsRef.current.some((other) => other.key === key)) setSelection(only(key));
      void actions.rename(row, name).then((renamed) => {
        const settled = renamed ? `${row.kind === 'folder' ? 'd' : 'f'}:${renamed.name}` : row.key;
        // Unless the person has moved on to other rows meanwhile.
        setSelection((current) => (current.active === key || current.active === row.key ? only(settled) : current));
      });
    },
    [actions],
  );
  const onDelete = useCallback(() => {
    if (selectedRows.length > 0) setDialog({ kind: 'delete', rows: selectedRows });
  }, [selectedRows]);

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
    [actions, toast, t],
  );

  const selectedRef = useRef(selectedRows);
  selectedRef.current = selectedRows;
  const onMenu = useCallback((row: Row, position: { x: number; y: number }) => {
    const inSelection = selectedRef.current.some((other) => other.key === row.key);
    // A row outside the selection becomes the selection, as in Finder: the menu acts on what is highlighted.
    if (!inSelection) setSelection({ selected: new Set([row.key]), anchor: row.key, active: row.key });
    setMenu({ rows: inSelection ? selectedRef.current : [row], position });
  }, []);
  const closeMenu = useCallback(() => {
    setMenu(null);
    refocusList();
  }, [refocusList]);

  // Drag rows onto a folder (or the breadcrumb) to move them; the whole selection goes when the row is in it.
  const onRowDragStart = useCallback((row: Row, event: DragEvent) => {
    const inSelection = selectedRef.current.some((other) => other.key === row.key);
    const moving = inSelection ? selectedRef.current.filter((other) => other.kind === 'file') : [row];
    if (!inSelection) setSelection({ selected: new Set([row.key]), anchor: row.key, active: row.key });
    event.dataTransfer.setData(ROWS_DRAG_TYPE, JSON.stringify(moving.map((other) => other.name)));
    event.dataTransfer.effectAllowed = 'move';
  }, []);
  const dropInto = useCallback(
    (to: string | null, event: DragEvent) => {
      const names = new Set(draggedNames(event));
      const moving = rowsRef.current.filter((row) => row.kind === 'file' && names.has(row.name));
      if (moving.length > 0 && to !== folder) void actions.move(moving, to);
    },
    [actions, folder],
  );
  const onDropOnFolder = useCallback((name: string, event: DragEvent) => dropInto(name, event), [dropInto]);

  const location = folder === null ? username : `${username} › ${folder}`;
  useEffect(() => {
    document.title = `${location} — Nimbus`;
  }, [location]);
  const fileCount = allRows.filter((row) => row.kind === 'file').length;
  const folderCount = allRows.length - fileCount;
  const totalBytes = allRows.reduce((sum, row) => sum + (row.kind === 'file' ? row.size : 0), 0);
  const summary = [
    folder === null ? t('explorer:status.folders', { count: folderCount }) : null,
    t('explorer:status.files', { count: fileCount }),
    formatBytes(totalBytes),
    selectedRows.length > 0 ? t('explorer:status.selected', { count: selectedRows.length }) : null,
  ]
    .filter(Boolean)
    .join(' · ');

  const loading = files.isPending || (folder === null && folders.isPending);

  // Opening a folder replaces the list that had the focus, which would leave it on <body> and
  // the keyboard dead: the new list takes it (or, with no list to show, this section).
  const focusPending = useRef(focusList);
  useEffect(() => {
    if (!focusPending.current || loading) return;
    focusPending.current = false;
    const focused = document.activeElement;
    if (focused && focused !== document.body) return; // the person already moved on
    refocusList();
  }, [loading, refocusList]);
  const onSectionKeyDown = (event: KeyboardEvent) => {
    // The list handles its own keys; this is for an empty folder, where the section has the focus.
    if (event.target !== event.currentTarget || folder === null) return;
    if (event.key === 'Backspace' || (event.key === 'ArrowUp' && event.altKey)) {
      event.preventDefault();
      onOpenFolder(null);
    }
  };

  let body;
  if (query) {
    body = (
      <SearchView
        username={username}
        query={query}
        onOpenFolder={(target) => {
          setSearch('');
          onOpenFolder(target);
        }}
        onPreview={(list, index) => setPreview({ files: list, index })}
      />
    );
  } else if (loading) {
    body = (
      <div className="browser__loading" role="status">
        {t('explorer:browser.loading', { location })}
      </div>
    );
  } else if (files.isError) {
    body = (
      <EmptyState
        icon={FolderOpen}
        title={t('explorer:browser.loadFailed')}
        action={
          <button type="button" className="button" onClick={() => void files.refetch()}>
            {t('explorer:browser.retry')}
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
        title={folder === null ? t('explorer:browser.emptyRoot') : t('explorer:browser.emptyFolder')}
        action={
          <button type="button" className="button button--primary" onClick={() => picker.current?.click()}>
            {t('explorer:browser.uploadFiles')}
          </button>
        }
      >
        {t('explorer:browser.emptyHint')}
      </EmptyState>
    );
  } else {
    const viewProps = {
      label: t('explorer:browser.listLabel', { location }),
      rows,
      selection,
      onSelectionChange: setSelection,
      editingKey,
      onOpen,
      onPreview,
      onStartRename,
      onRenameCommit,
      onRenameCancel,
      onDelete,
      onMenu,
      onShareClick: (row: Row) => void openShare(row),
      onRowDragStart,
      onDropOnFolder: folder === null ? onDropOnFolder : undefined,
      onGoUp: folder === null ? undefined : () => onOpenFolder(null),
    };
    body =
      view === 'grid' ? (
        <FileGrid {...viewProps} username={username} />
      ) : (
        <FileTable {...viewProps} sort={sort} onSort={(key) => setSort((current) => nextSort(current, key))} />
      );
  }

  const menuLink = menu ? actions.downloadLink(menu.rows, menu.rows.length === rows.length) : null;

  return (
    <DropZone destination={location} onFiles={upload}>
      <section
        ref={sectionRef}
        className="browser"
        aria-label={t('explorer:browser.label', { username })}
        tabIndex={-1}
        onKeyDown={onSectionKeyDown}
      >
        <Toolbar
          breadcrumb={
            <Breadcrumb
              username={username}
              folder={folder}
              onOpenRoot={() => onOpenFolder(null)}
              onDropOnRoot={folder === null ? undefined : (event) => dropInto(null, event)}
            />
          }
          search={search}
          onSearchChange={setSearch}
          view={view}
          onViewChange={setView}
          onUpload={() => picker.current?.click()}
          onNewFolder={folder === null ? () => setDialog({ kind: 'new-folder' }) : undefined}
          selectedCount={selectedRows.length}
          canDownload={selectedRows.length > 0}
          downloadIsZip={selectedRows.length > 0 && singleFile === null}
          canRename={single !== null}
          canShare={singleFile !== null}
          canMove={onlyFiles}
          onDownload={() => void actions.download(selectedRows, everything)}
          onRename={() => single && setEditingKey(single.key)}
          onMove={() => setDialog({ kind: 'transfer', mode: 'move', rows: selectedRows })}
          onCopy={() => setDialog({ kind: 'transfer', mode: 'copy', rows: selectedRows })}
          onShare={() => singleFile && void openShare(singleFile)}
          onDelete={onDelete}
          onReveal={bridge && singleFile ? () => void bridge.revealFile(username, folder, singleFile.name) : undefined}
        />
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-label={t('explorer:browser.chooseFiles')}
          onChange={(event) => {
            const list = Array.from(event.currentTarget.files ?? []);
            event.currentTarget.value = '';
            if (list.length > 0) upload(list);
          }}
        />
        {body}
        <StatusBar summary={summary} live={live} />
        {menu ? (
          <ContextMenu
            label={
              menu.rows.length === 1
                ? t('explorer:menu.labelOne', { name: menu.rows[0].name })
                : t('explorer:menu.labelMany', { count: menu.rows.length })
            }
            position={menu.position}
            onClose={closeMenu}
            items={menuItems(
              menu.rows,
              {
                open: onOpen,
                downloadHref: menuLink?.href ?? null,
                downloadName: menuLink?.saveAs ?? '',
                download: () => void actions.download(menu.rows, menu.rows.length === rows.length),
                rename: onStartRename,
                move: () => setDialog({ kind: 'transfer', mode: 'move', rows: menu.rows }),
                copy: () => setDialog({ kind: 'transfer', mode: 'copy', rows: menu.rows }),
                share: (row) => void openShare(row),
                remove: () => setDialog({ kind: 'delete', rows: menu.rows }),
              },
              t,
            )}
          />
        ) : null}
        {preview ? (
          <PreviewViewer
            username={username}
            files={preview.files}
            index={preview.index}
            onIndexChange={(index) => setPreview((current) => (current ? { ...current, index } : current))}
            onClose={() => {
              setPreview(null);
              refocusList();
            }}
          />
        ) : null}
        <BrowserDialogs
          username={username}
          folder={folder}
          dialog={dialog}
          actions={actions}
          onConfirmDelete={confirmDelete}
          onClose={() => setDialog(null)}
        />
      </section>
    </DropZone>
  );
}
