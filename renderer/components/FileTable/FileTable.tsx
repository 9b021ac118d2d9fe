import { useCallback, useEffect, useId, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ArrowDown, ArrowUp } from 'lucide-react';
import type { Row, Sort, SortKey } from '../../lib/rows';
import { clickSelect, moveActive, selectAll, toggleActive, type Selection } from '../../lib/selection';
import { FileRow } from './FileRow';
import './FileTable.css';

export const ROW_HEIGHT = 36;
const HEADER_HEIGHT = 34;

const COLUMNS: { key: SortKey; label: string; className: string }[] = [
  { key: 'name', label: 'Name', className: 'ft__cell--name' },
  { key: 'size', label: 'Size', className: 'ft__cell--size' },
  { key: 'modified', label: 'Modified', className: 'ft__cell--modified' },
  { key: 'shared', label: 'Sharing', className: 'ft__cell--shared' },
];

export interface FileTableProps {
  label: string;
  rows: readonly Row[];
  selection: Selection;
  onSelectionChange: (selection: Selection) => void;
  sort: Sort;
  onSort: (key: SortKey) => void;
  editingKey: string | null;
  /** Enter or double-click: opens a folder, downloads a file. */
  onOpen: (row: Row) => void;
  onStartRename: (row: Row) => void;
  onRenameCommit: (row: Row, name: string) => void;
  onRenameCancel: () => void;
  onDelete: () => void;
  onShareClick: (row: Row) => void;
  /** Backspace or Alt+↑: back to the parent (absent at a user's root). */
  onGoUp?: () => void;
}

/**
 * The file list as an ARIA grid: one tab stop, arrows move the active row (announced
 * through aria-activedescendant), and only the rows in view are in the DOM.
 */
export function FileTable(props: FileTableProps) {
  const { rows, selection, onSelectionChange, editingKey } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const gridId = useId();
  const keys = rows.map((row) => row.key);
  const keysRef = useRef(keys);
  keysRef.current = keys;

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    scrollMargin: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
    getItemKey: (index) => rows[index].key,
  });

  const activeIndex = selection.active === null ? -1 : keys.indexOf(selection.active);
  useEffect(() => {
    if (activeIndex >= 0) virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
  }, [activeIndex, virtualizer]);

  // When an inline rename ends (saved or cancelled), keyboard focus returns to the list.
  const wasEditing = useRef(false);
  useEffect(() => {
    if (wasEditing.current && editingKey === null) scrollRef.current?.focus({ preventScroll: true });
    wasEditing.current = editingKey !== null;
  }, [editingKey]);

  const rowId = (index: number) => `${gridId}-row-${index}`;

  const onRowClick = useCallback(
    (row: Row, event: MouseEvent) => {
      scrollRef.current?.focus({ preventScroll: true });
      onSelectionChange(
        clickSelect(selectionRef.current, keysRef.current, row.key, { shift: event.shiftKey, toggle: event.ctrlKey || event.metaKey }),
      );
    },
    [onSelectionChange],
  );
  const selectionRef = useRef(selection);
  selectionRef.current = selection;

  const { onOpen, onStartRename } = props;
  const onRowDoubleClick = useCallback(
    (row: Row, onName: boolean) => {
      if (row.kind === 'file' && onName) onStartRename(row);
      else onOpen(row);
    },
    [onOpen, onStartRename],
  );

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (editingKey !== null || event.target !== event.currentTarget) return;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / ROW_HEIGHT) - 1);
    const active = activeIndex >= 0 ? rows[activeIndex] : undefined;
    const move = (delta: number) => onSelectionChange(moveActive(selection, keys, delta, event.shiftKey));
    const mod = event.ctrlKey || event.metaKey;
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        move(1);
        break;
      case 'ArrowUp':
        if (event.altKey && props.onGoUp) {
          props.onGoUp();
          break;
        }
        move(-1);
        break;
      case 'PageDown':
        move(page);
        break;
      case 'PageUp':
        move(-page);
        break;
      case 'Home':
        move(-keys.length);
        break;
      case 'End':
        move(keys.length);
        break;
      case 'Enter':
        if (active) props.onOpen(active);
        break;
      case 'F2':
        if (active?.kind === 'file') props.onStartRename(active);
        break;
      case 'Delete':
        if (selection.selected.size > 0) props.onDelete();
        break;
      case 'Backspace':
        if (mod && selection.selected.size > 0) props.onDelete();
        else if (!mod && props.onGoUp) props.onGoUp();
        else handled = false;
        break;
      case 'Escape':
        onSelectionChange({ selected: new Set(), anchor: null, active: selection.active });
        break;
      case ' ':
        onSelectionChange(toggleActive(selection));
        break;
      case 'a':
      case 'A':
        if (mod) onSelectionChange(selectAll(selection, keys));
        else handled = false;
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  }

  return (
    <div
      ref={scrollRef}
      className="ft"
      role="grid"
      tabIndex={0}
      aria-label={props.label}
      aria-rowcount={rows.length + 1}
      aria-colcount={COLUMNS.length}
      aria-multiselectable="true"
      aria-activedescendant={activeIndex >= 0 ? rowId(activeIndex) : undefined}
      onKeyDown={onKeyDown}
    >
      <div role="rowgroup" className="ft__head">
        <div role="row" aria-rowindex={1} className="ft__row ft__row--head">
          {COLUMNS.map((column) => {
            const sorted = props.sort.key === column.key;
            const Arrow = props.sort.direction === 'asc' ? ArrowUp : ArrowDown;
            return (
              <div
                key={column.key}
                role="columnheader"
                className={`ft__cell ${column.className}`}
                aria-sort={sorted ? (props.sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
              >
                <button type="button" className="ft__sort" onClick={() => props.onSort(column.key)}>
                  {column.label}
                  {sorted ? <Arrow size={13} aria-hidden="true" /> : null}
                </button>
              </div>
            );
          })}
        </div>
      </div>
      <div role="rowgroup" className="ft__body" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          return (
            <FileRow
              key={row.key}
              row={row}
              id={rowId(item.index)}
              index={item.index}
              top={item.start - HEADER_HEIGHT}
              selected={selection.selected.has(row.key)}
              active={selection.active === row.key}
              editing={editingKey === row.key}
              onRowClick={onRowClick}
              onRowDoubleClick={onRowDoubleClick}
              onShareClick={props.onShareClick}
              onRenameCommit={props.onRenameCommit}
              onRenameCancel={props.onRenameCancel}
            />
          );
        })}
      </div>
    </div>
  );
}
