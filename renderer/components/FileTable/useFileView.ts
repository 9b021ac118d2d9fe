import { useCallback, useEffect, useRef, type KeyboardEvent, type MouseEvent, type RefObject } from 'react';
import type { Row } from '../../lib/rows';
import { clickSelect, inTouchSelection, touchSelect, type Selection } from '../../lib/selection';
import { handleListKey } from './listKeys';
import { menuPositionOf, type RowEvents } from './rowEvents';
import { useTouchGestures } from './useTouchGestures';

/** What the list and the grid both take: rows, selection, and what a person does to them. */
export interface FileViewProps extends Omit<RowEvents, 'onRowClick' | 'onRowDoubleClick' | 'onRowMenu'> {
  label: string;
  rows: readonly Row[];
  selection: Selection;
  onSelectionChange: (selection: Selection) => void;
  editingKey: string | null;
  /** Enter, double-click or a tap (touch): opens a folder, previews a file. */
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

/**
 * Row clicks as Finder takes them: a click selects one, Ctrl/Cmd toggles, Shift extends, a
 * double-click opens; the list keeps the focus. A finger works as on a phone: a tap opens, a
 * long press selects and enters selection mode, where taps toggle (lib/selection.ts).
 */
function useRowClicks(props: FileViewProps, focusTarget: () => HTMLElement | null) {
  const keysRef = useRef<string[]>([]);
  keysRef.current = props.rows.map((row) => row.key);
  const selectionRef = useRef(props.selection);
  selectionRef.current = props.selection;
  const { onSelectionChange, onOpen, onMenu } = props;
  const toggleByTouch = useCallback(
    (row: Row) => {
      focusTarget()?.focus({ preventScroll: true });
      onSelectionChange(touchSelect(selectionRef.current, row.key));
    },
    [onSelectionChange, focusTarget],
  );
  const gestures = useTouchGestures(toggleByTouch);
  const onRowClick = useCallback(
    (row: Row, event: MouseEvent) => {
      const source = gestures.clickSource();
      if (source === 'after-long-press') return; // the long press already selected
      const modified = event.shiftKey || event.ctrlKey || event.metaKey;
      if (source === 'tap' && !modified) {
        if (inTouchSelection(selectionRef.current)) toggleByTouch(row);
        else onOpen(row);
        return;
      }
      focusTarget()?.focus({ preventScroll: true });
      onSelectionChange(
        clickSelect(selectionRef.current, keysRef.current, row.key, { shift: event.shiftKey, toggle: event.ctrlKey || event.metaKey }),
      );
    },
    [gestures, onSelectionChange, onOpen, toggleByTouch, focusTarget],
  );
  // A double tap is two taps (the first already opened): only a mouse's double-click opens here.
  const onRowDoubleClick = useCallback(
    (row: Row) => {
      if (gestures.clickSource() === 'mouse') onOpen(row);
    },
    [gestures, onOpen],
  );
  const onRowMenu = useCallback((row: Row, position: { x: number; y: number }) => onMenu?.(row, position), [onMenu]);
  return { onRowClick, onRowDoubleClick, onRowMenu, gestures };
}

/** How the view lays its rows out, for the arrow and page keys. */
interface Layout {
  /** Rows (cards) per line. */
  columns: number;
  /** The height of one line in pixels. */
  lineHeight: number;
  /** The DOM id of the row or card at an index (the menu key opens the menu beside it). */
  itemId: (index: number) => string;
}

/**
 * What the list and the grid do alike around their rows: the active row, keys, clicks, focus
 * back on the view after a rename, and the props every row or card takes.
 */
export function useFileView(props: FileViewProps, scrollRef: RefObject<HTMLDivElement | null>, { columns, lineHeight, itemId }: Layout) {
  const { rows, selection, editingKey } = props;
  const keys = rows.map((row) => row.key);
  const activeIndex = selection.active === null ? -1 : keys.indexOf(selection.active);

  // When an inline rename ends (saved or cancelled), keyboard focus returns to the view.
  const wasEditing = useRef(false);
  useEffect(() => {
    if (wasEditing.current && editingKey === null) scrollRef.current?.focus({ preventScroll: true });
    wasEditing.current = editingKey !== null;
  }, [editingKey, scrollRef]);

  const focusTarget = useCallback(() => scrollRef.current, [scrollRef]);
  const { onRowClick, onRowDoubleClick, onRowMenu, gestures } = useRowClicks(props, focusTarget);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (editingKey !== null || event.target !== event.currentTarget) return;
    const handled = handleListKey(event, {
      ...props,
      columns,
      pageLines: Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / lineHeight) - 1),
      onPreview: props.onPreview ?? props.onOpen,
      onMenu: (row) => props.onMenu?.(row, menuPositionOf(document.getElementById(itemId(keys.indexOf(row.key))))),
    });
    if (handled) event.preventDefault();
  }

  /** What each row or card takes: where it stands in the selection, and whom it tells what happens to it. */
  const itemProps = (row: Row) => ({
    row,
    selected: selection.selected.has(row.key),
    active: selection.active === row.key,
    editing: editingKey === row.key,
    onRowClick,
    onRowDoubleClick,
    onRowMenu,
    gestures,
    onShareClick: props.onShareClick,
    onRenameCommit: props.onRenameCommit,
    onRenameCancel: props.onRenameCancel,
    onRowDragStart: props.onRowDragStart,
    onDropOnFolder: props.onDropOnFolder,
  });

  return { activeIndex, onKeyDown, itemProps };
}
