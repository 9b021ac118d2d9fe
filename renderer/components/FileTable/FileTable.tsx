import { useCallback, useEffect, useId, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ArrowDown, ArrowUp } from 'lucide-react';
import type { Row, Sort, SortKey } from '../../lib/rows';
import { clickSelect, type Selection } from '../../lib/selection';
import { FileRow } from './FileRow';
import { handleListKey } from './listKeys';
import { menuPositionOf, type RowEvents } from './rowEvents';
import { useCompact } from './useCompact';
import './FileTable.css';

export const ROW_HEIGHT = 36;
/** Rows on a small or touch screen: 44 px targets with room around them. */
export const COMPACT_ROW_HEIGHT = 48;
const HEADER_HEIGHT = 34;

const COLUMNS: { key: SortKey; className: string }[] = [
  { key: 'name', className: 'ft__cell--name' },
  { key: 'size', className: 'ft__cell--size' },
  { key: 'modified', className: 'ft__cell--modified' },
  { key: 'shared', className: 'ft__cell--shared' },
];

/** What the list and the grid both take: rows, selection, and what a person does to them. */
export interface FileViewProps extends Omit<RowEvents, 'onRowClick' | 'onRowDoubleClick' | 'onRowMenu'> {
  label: string;
  rows: readonly Row[];
  selection: Selection;
  onSelectionChange: (selection: Selection) => void;
  editingKey: string | null;
  /** Enter or double-click: opens a folder, previews a file. */
  onOpen: (row: Row) => void;
  /** Space on a file. Defaults to `onOpen`. */
  onPreview?: (row: Row) => void;
  onStartRename: (row: Row) => void;
  onDelete: () => void;
  /** The context menu for `row` (the selection, when `row` is in it) at a viewport point. */
  onMenu?: (row: Row, position: { x: number; y: number }) => void;
  /** Backspace or Alt+↑: back to the parent (absent at a user's root). */
  onGoUp?: () => void;
}

export interface FileTableProps extends FileViewProps {
  sort: Sort;
  onSort: (key: SortKey) => void;
}

/** Row clicks as Finder takes them: a click selects one, Ctrl/Cmd toggles, Shift extends; the list keeps the focus. */
export function useRowClicks(props: FileViewProps, focusTarget: () => HTMLElement | null) {
  const keysRef = useRef<string[]>([]);
  keysRef.current = props.rows.map((row) => row.key);
  const selectionRef = useRef(props.selection);
  selectionRef.current = props.selection;
  const { onSelectionChange, onOpen, onMenu } = props;
  const onRowClick = useCallback(
    (row: Row, event: MouseEvent) => {
      focusTarget()?.focus({ preventScroll: true });
      onSelectionChange(
        clickSelect(selectionRef.current, keysRef.current, row.key, { shift: event.shiftKey, toggle: event.ctrlKey || event.metaKey }),
      );
    },
    [onSelectionChange, focusTarget],
  );
  const onRowDoubleClick = useCallback((row: Row) => onOpen(row), [onOpen]);
  const onRowMenu = useCallback((row: Row, position: { x: number; y: number }) => onMenu?.(row, position), [onMenu]);
  return { onRowClick, onRowDoubleClick, onRowMenu };
}

/**
 * The file list as an ARIA grid: one tab stop, arrows move the active row (announced
 * through aria-activedescendant), and only the rows in view are in the DOM.
 */
export function FileTable(props: FileTableProps) {
  const { t } = useTranslation();
  const { rows, selection, editingKey } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const gridId = useId();
  const rowHeight = useCompact() ? COMPACT_ROW_HEIGHT : ROW_HEIGHT;
  const keys = rows.map((row) => row.key);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    scrollMargin: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
    getItemKey: (index) => rows[index].key,
  });
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer]);

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
  const focusTarget = useCallback(() => scrollRef.current, []);
  const { onRowClick, onRowDoubleClick, onRowMenu } = useRowClicks(props, focusTarget);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (editingKey !== null || event.target !== event.currentTarget) return;
    const handled = handleListKey(event, {
      ...props,
      columns: 1,
      pageLines: Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / rowHeight) - 1),
      onPreview: props.onPreview ?? props.onOpen,
      onMenu: (row) => props.onMenu?.(row, menuPositionOf(document.getElementById(rowId(keys.indexOf(row.key))))),
    });
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
      aria-colcount={COLUMNS.length + 1}
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
                  {t(`explorer:table.column.${column.key}`)}
                  {sorted ? <Arrow size={13} aria-hidden="true" /> : null}
                </button>
              </div>
            );
          })}
          <div role="columnheader" className="ft__cell ft__cell--more">
            <span className="visually-hidden">{t('explorer:table.column.actions')}</span>
          </div>
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
              height={rowHeight}
              selected={selection.selected.has(row.key)}
              active={selection.active === row.key}
              editing={editingKey === row.key}
              onRowClick={onRowClick}
              onRowDoubleClick={onRowDoubleClick}
              onRowMenu={onRowMenu}
              onShareClick={props.onShareClick}
              onRenameCommit={props.onRenameCommit}
              onRenameCancel={props.onRenameCancel}
              onRowDragStart={props.onRowDragStart}
              onDropOnFolder={props.onDropOnFolder}
            />
          );
        })}
      </div>
    </div>
  );
}
