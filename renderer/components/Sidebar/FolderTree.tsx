import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronRight, Folder, FolderOpen } from 'lucide-react';
import { dropTargetProps } from '../FileTable/rowEvents';
import { dropRowsInto } from '../FileBrowser/rowDrop';
import { useFolderTree, type TreeRow } from './useFolderTree';
import './FolderTree.css';

interface FolderTreeProps {
  username: string;
  /** The folder open in the explorer (highlighted, its parents expanded); null at the root or elsewhere. */
  open: string | null;
  onOpen: (folder: string) => void;
}

/**
 * The user's folders as a lazy tree (WAI-ARIA tree pattern): one tab stop; ↑ ↓ Home End move,
 * → expands or goes to the first child, ← collapses or goes to the parent, Enter opens. A
 * folder's folders are fetched when it is expanded; files dragged from the list onto a folder
 * move there. Each level shows its first TREE_LEVEL_CAP folders, then "Show more".
 */
export function FolderTree({ username, open, onOpen }: FolderTreeProps) {
  const { t } = useTranslation();
  const tree = useFolderTree(username, open);
  const { rows } = tree;
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const indexOf = (key: string | null) => rows.findIndex((row) => row.key === key);
  const tabStop = Math.max(0, [focusKey, open === null ? null : `f:${open}`].map(indexOf).find((index) => index >= 0) ?? 0);

  // Focus moved by key follows its line once rendered (an expanded level comes later).
  const pendingFocus = useRef<string | null>(null);
  useEffect(() => {
    if (pendingFocus.current === null) return;
    const wanted = pendingFocus.current;
    const item = [...(listRef.current?.querySelectorAll<HTMLElement>('[data-key]') ?? [])].find((line) => line.dataset.key === wanted);
    if (item) {
      pendingFocus.current = null;
      item.focus();
    }
  });
  const focusRow = (row: TreeRow | undefined) => {
    if (!row) return;
    pendingFocus.current = row.key;
    setFocusKey(row.key);
  };

  function activate(row: TreeRow) {
    if (row.kind === 'more') tree.showMore(row.parent);
    else onOpen(row.path);
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.altKey || event.ctrlKey || event.metaKey || rows.length === 0) return;
    const row = rows[tabStop];
    switch (event.key) {
      case 'ArrowDown':
        focusRow(rows[tabStop + 1]);
        break;
      case 'ArrowUp':
        focusRow(rows[tabStop - 1]);
        break;
      case 'Home':
        focusRow(rows[0]);
        break;
      case 'End':
        focusRow(rows[rows.length - 1]);
        break;
      case 'ArrowRight':
        if (row.kind !== 'folder' || !row.hasChildren) break;
        if (!row.expanded) tree.setExpanded(row.path, true);
        else if (rows[tabStop + 1]?.level === row.level + 1) focusRow(rows[tabStop + 1]);
        break;
      case 'ArrowLeft':
        if (row.kind === 'folder' && row.expanded) tree.setExpanded(row.path, false);
        else if (row.parent !== null) focusRow(rows[indexOf(`f:${row.parent}`)]);
        break;
      case 'Enter':
      case ' ':
        activate(row);
        break;
      default:
        return;
    }
    event.preventDefault();
  }

  if (tree.failed) return <p className="folder-tree__note">{t('shell:tree.failed')}</p>;
  if (rows.length === 0) return null;
  return (
    <ul ref={listRef} className="folder-tree" role="tree" aria-label={t('shell:tree.label', { username })} onKeyDown={onKeyDown}>
      {rows.map((row, index) => {
        const indent = { paddingInlineStart: `${4 + (row.level - 1) * 14}px` };
        const tabIndex = index === tabStop ? 0 : -1;
        if (row.kind === 'more')
          return (
            <li
              key={row.key}
              data-key={row.key}
              role="treeitem"
              aria-level={row.level}
              tabIndex={tabIndex}
              className="folder-tree__item folder-tree__more"
              style={indent}
              onClick={() => activate(row)}
              onFocus={() => setFocusKey(row.key)}
            >
              {t('shell:tree.more', { count: row.hidden })}
            </li>
          );
        const current = row.path === open;
        const Icon = current ? FolderOpen : Folder;
        return (
          <li
            key={row.key}
            data-key={row.key}
            role="treeitem"
            aria-level={row.level}
            aria-posinset={row.posinset}
            aria-setsize={row.setsize}
            aria-expanded={row.hasChildren ? row.expanded : undefined}
            aria-selected={current}
            aria-current={current ? 'page' : undefined}
            aria-busy={row.busy || undefined}
            tabIndex={tabIndex}
            className={`folder-tree__item${current ? ' is-current' : ''}`}
            style={indent}
            title={row.path}
            onClick={() => activate(row)}
            onFocus={() => setFocusKey(row.key)}
            {...dropTargetProps((event) => dropRowsInto(username, row.path, event))}
          >
            <span
              className={`folder-tree__chevron${row.expanded ? ' is-open' : ''}`}
              aria-hidden="true"
              onClick={(event) => {
                if (!row.hasChildren) return;
                // The chevron only expands or collapses; the name opens the folder.
                event.stopPropagation();
                tree.setExpanded(row.path, !row.expanded);
              }}
            >
              {row.hasChildren ? <ChevronRight size={14} /> : null}
            </span>
            <Icon size={15} aria-hidden="true" className="folder-tree__icon" />
            <span className="folder-tree__name">{row.name}</span>
          </li>
        );
      })}
    </ul>
  );
}
