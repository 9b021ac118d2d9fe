import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFileActions } from '../../hooks/useFileActions';
import type { LiveState } from '../../hooks/useLiveEvents';
import { parentFolder } from '../../lib/places';
import { nextSort, type Row, type Sort } from '../../lib/rows';
import { EMPTY_SELECTION } from '../../lib/selection';
import { useExplorerUploads } from '../../upload/useExplorerUploads';
import { Breadcrumb } from '../Breadcrumb/Breadcrumb';
import { DropZone } from '../DropZone/DropZone';
import { LazyPreviewViewer } from '../Preview/LazyPreviewViewer';
import { RenameRefusalContext } from '../RenameEditor/renameRefusal';
import { useSearchResults } from '../SearchView/useSearchResults';
import { StatusBar } from '../StatusBar/StatusBar';
import { SelectionBar } from '../Toolbar/SelectionBar';
import { Toolbar } from '../Toolbar/Toolbar';
import { BrowserBody } from './BrowserBody';
import { sectionKeyHandler, useDirectoryTitle } from './browserSection';
import { BrowserDialogs, type DialogState } from './BrowserDialogs';
import { directorySummary } from './directorySummary';
import { FileContextMenu } from './FileContextMenu';
import { useBrowserCommands, type PreviewState } from './useBrowserCommands';
import { useDirectoryRows } from './useDirectoryRows';
import { useInPlaceRename } from './useInPlaceRename';
import { useListFocus } from './useListFocus';
import { useOfferRowDrop } from './rowDrop';
import { useReadOnlyDrop } from './readOnlyDrop';
import { useCanWrite } from '../Session/sessionContext';
import { useRevealedFile } from './revealFile';
import { useRowDrag } from './useRowDrag';
import { useRowMenu } from './useRowMenu';
import { useRowSelection } from './useRowSelection';
import { useSearchText } from './useSearchText';
import { useViewMode } from './viewMode';
import './FileBrowser.css';

interface FileBrowserProps {
  username: string;
  folder: string | null;
  /** Put the keyboard focus on the file list once it shows (after moving between folders). */
  focusList?: boolean;
  /** The search typed in the toolbar (the address's `/search?q=`), and how a new one is told. */
  search?: string;
  onSearch?: (query: string) => void;
  live: LiveState;
  onOpenFolder: (folder: string | null) => void;
}

const ignoreSearch = () => {};
const ignore = () => {};

/** One directory of one user: toolbar, list or grid, search, context menu, previews, drop target, dialogs. */
export function FileBrowser({ username, folder, focusList = false, live, onOpenFolder, ...props }: FileBrowserProps) {
  const { t } = useTranslation();
  const actions = useFileActions(username, folder);
  const uploads = useExplorerUploads(username, folder);
  const drop = useReadOnlyDrop(uploads);
  // A read key's changes would be refused: F2 and drags onto folders do nothing (Delete: useBrowserCommands).
  const canWrite = useCanWrite();
  const [view, setView] = useViewMode(username);
  const { text: search, setText: setSearch, query } = useSearchText(props.search ?? '', props.onSearch ?? ignoreSearch);
  const [sort, setSort] = useState<Sort>({ key: 'name', direction: 'asc' });
  const [dialog, setDialog] = useState<DialogState>(null);
  const [preview, setPreview] = useState<PreviewState | null>(null);

  const goToRoot = useCallback(() => onOpenFolder(null), [onOpenFolder]);
  const { files, rows, allRows, loading } = useDirectoryRows(username, folder, sort, goToRoot);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const { selection, setSelection, selectedRows, selectedRef } = useRowSelection(rows);
  const { sectionRef, refocusList } = useListFocus(focusList, loading);
  const { menu, onMenu, closeMenu } = useRowMenu(selectedRef, setSelection, refocusList);
  const rename = useInPlaceRename(actions, rowsRef, setSelection, refocusList);
  const drag = useRowDrag({ folder, actions, rowsRef, selectedRef, setSelection });
  useOfferRowDrop(username, canWrite ? drag.dropInto : ignore);
  const onStartRename = canWrite ? rename.onStartRename : ignore;
  // While a search is shown, its results have the folder's actions, each in the file's own folder.
  const found = useSearchResults(username, query, setSearch, onOpenFolder);
  useRevealedFile(username, folder, rows, !loading && query === '' && !files.isFetching, setSelection, refocusList);
  const browser = useBrowserCommands({
    username,
    folder,
    actions,
    rowsRef,
    onOpenFolder,
    onShowFile: found.showFile,
    onStartRename,
    setDialog,
    setPreview,
    setSelection,
  });
  const { commands, inShell } = browser;
  const selectionTarget = { rows: selectedRows, everything: selectedRows.length === rows.length, inShell };

  const onDelete = useCallback(() => {
    if (selectedRows.length > 0) commands.remove(selectedRows);
  }, [commands, selectedRows]);

  const location = folder === null ? username : `${username} › ${folder}`;
  useDirectoryTitle(location);

  return (
    <DropZone destination={location} onFiles={drop.onFiles} onEntries={drop.onEntries} refusal={drop.refusal}>
      <section
        ref={sectionRef}
        className="browser"
        aria-label={t('explorer:browser.label', { username })}
        tabIndex={-1}
        onKeyDown={sectionKeyHandler(folder, onOpenFolder)}
      >
        <Toolbar
          breadcrumb={
            <Breadcrumb
              username={username}
              folder={folder}
              search={query || undefined}
              onOpen={query ? found.leave : onOpenFolder}
              onDropOn={canWrite ? drag.dropInto : undefined}
            />
          }
          search={search}
          onSearchChange={setSearch}
          view={view}
          onViewChange={setView}
          onUpload={uploads.chooseFiles}
          onUploadFolder={uploads.chooseFolder}
          onNewFolder={() => setDialog({ kind: 'new-folder' })}
          target={query ? found.target : selectionTarget}
          commands={commands}
        />
        {uploads.pickers}
        {/* A name the daemon refused goes back to the row's editor with the reason (useInPlaceRename). */}
        <RenameRefusalContext.Provider value={rename.refusal}>
          <BrowserBody
            username={username}
            location={location}
            query={query}
            loading={loading}
            failed={files.isError ? { error: files.error, onRetry: () => void files.refetch() } : null}
            empty={allRows.length === 0}
            emptyRoot={folder === null}
            onOpenRoot={folder === null ? undefined : goToRoot}
            view={view}
            viewProps={{
              rows,
              selection,
              onSelectionChange: setSelection,
              editingKey: rename.editingKey,
              onOpen: browser.onOpen,
              onPreview: browser.onPreview,
              onStartRename,
              onRenameCommit: rename.onRenameCommit,
              onRenameCancel: rename.onRenameCancel,
              onDelete,
              onMenu,
              onShareClick: (row: Row) => void browser.openShare(row),
              onRowDragStart: drag.onRowDragStart,
              onDropOnFolder: canWrite ? drag.onDropOnFolder : undefined,
              onGoUp: folder === null ? undefined : () => onOpenFolder(parentFolder(folder)),
            }}
            sort={sort}
            onSort={(key) => setSort((current) => nextSort(current, key))}
            onChooseFiles={canWrite ? uploads.chooseFiles : undefined}
            search={{
              onOpenFolder: found.leave,
              onPreview: (list, index) => setPreview({ files: list, index }),
              actions: {
                commands,
                inShell,
                editingKey: rename.editingKey,
                onRenameCommit: rename.onRenameCommit,
                onRenameCancel: rename.onRenameCancel,
                onChoose: found.setChosen,
              },
            }}
          />
        </RenameRefusalContext.Provider>
        {query ? null : (
          <SelectionBar
            target={selectionTarget}
            commands={commands}
            onClear={() => {
              setSelection(EMPTY_SELECTION);
              refocusList();
            }}
            onMore={(position) => onMenu(selectedRows[0], position)}
          />
        )}
        <StatusBar summary={query ? found.summary : directorySummary(t, allRows, folder, selectedRows.length)} live={live} />
        {menu ? (
          <FileContextMenu
            target={{ rows: menu.rows, everything: menu.rows.length === rows.length, inShell }}
            commands={commands}
            position={menu.position}
            onClose={closeMenu}
          />
        ) : null}
        {preview ? (
          <LazyPreviewViewer
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
          onConfirmDelete={browser.confirmDelete}
          onClose={() => setDialog(null)}
        />
      </section>
    </DropZone>
  );
}
