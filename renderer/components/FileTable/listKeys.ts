import type { KeyboardEvent } from 'react';
import type { Row } from '../../lib/rows';
import { moveActive, selectAll, toggleActive, type Selection } from '../../lib/selection';

/** What the keyboard can do to a list of rows; the list and the grid share it, so they answer the same keys. */
export interface ListKeyActions {
  rows: readonly Row[];
  selection: Selection;
  onSelectionChange: (selection: Selection) => void;
  /** Rows per line: 1 in the list; the grid's column count (←/→ move by one, ↑/↓ by a line). */
  columns: number;
  /** Lines in a page (PageUp/PageDown). */
  pageLines: number;
  /** Enter (and double-click): opens a folder, previews a file. */
  onOpen: (row: Row) => void;
  /** Space: previews a file (Ctrl+Space toggles its selection). */
  onPreview: (row: Row) => void;
  onStartRename: (row: Row) => void;
  onDelete: () => void;
  /** Shift+F10 or the menu key: the context menu of the active row. */
  onMenu: (row: Row) => void;
  onGoUp?: () => void;
}

/** Handles one key on the focused list; true when it did something (the caller prevents the default). */
export function handleListKey(event: KeyboardEvent, actions: ListKeyActions): boolean {
  const { rows, selection, columns } = actions;
  const keys = rows.map((row) => row.key);
  const activeIndex = selection.active === null ? -1 : keys.indexOf(selection.active);
  const active = activeIndex >= 0 ? rows[activeIndex] : undefined;
  const move = (delta: number) => actions.onSelectionChange(moveActive(selection, keys, delta, event.shiftKey));
  const mod = event.ctrlKey || event.metaKey;
  switch (event.key) {
    case 'ArrowDown':
      move(columns);
      return true;
    case 'ArrowUp':
      if (event.altKey && actions.onGoUp) actions.onGoUp();
      else move(-columns);
      return true;
    case 'ArrowRight':
    case 'ArrowLeft':
      if (columns === 1) return false;
      move(event.key === 'ArrowRight' ? 1 : -1);
      return true;
    case 'PageDown':
      move(actions.pageLines * columns);
      return true;
    case 'PageUp':
      move(-actions.pageLines * columns);
      return true;
    case 'Home':
      move(-keys.length);
      return true;
    case 'End':
      move(keys.length);
      return true;
    case 'Enter':
      if (active) actions.onOpen(active);
      return true;
    case 'F2':
      if (active) actions.onStartRename(active);
      return true;
    case 'F10':
      if (!event.shiftKey) return false;
      if (active) actions.onMenu(active);
      return true;
    case 'ContextMenu':
      if (active) actions.onMenu(active);
      return true;
    case 'Delete':
      if (selection.selected.size > 0) actions.onDelete();
      return true;
    case 'Backspace':
      if (mod && selection.selected.size > 0) actions.onDelete();
      else if (!mod && actions.onGoUp) actions.onGoUp();
      else return false;
      return true;
    case 'Escape':
      actions.onSelectionChange({ selected: new Set(), anchor: null, active: selection.active });
      return true;
    case ' ':
      if (mod || active?.kind !== 'file') actions.onSelectionChange(toggleActive(selection));
      else actions.onPreview(active);
      return true;
    case 'a':
    case 'A':
      if (!mod) return false;
      actions.onSelectionChange(selectAll(selection, keys));
      return true;
    default:
      return false;
  }
}
