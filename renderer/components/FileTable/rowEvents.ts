import type { DragEvent, MouseEvent, PointerEvent } from 'react';
import type { Row } from '../../lib/rows';
import type { RowGestures } from './useTouchGestures';

/** What a row (list) or card (grid) reports; the file browser decides what each means. */
export interface RowEvents {
  onRowClick: (row: Row, event: MouseEvent) => void;
  onRowDoubleClick: (row: Row) => void;
  /** Right-click, or the row's "⋯" button (touch): the context menu at that point. */
  onRowMenu: (row: Row, position: { x: number; y: number }) => void;
  onShareClick: (row: Row) => void;
  onRenameCommit: (row: Row, name: string) => void;
  onRenameCancel: () => void;
  /** A row starts being dragged (to move it onto a folder or a crumb). */
  onRowDragStart?: (row: Row, event: DragEvent) => void;
  /** Rows dragged from this list were dropped on a folder row. */
  onDropOnFolder?: (folder: string, event: DragEvent) => void;
  /** Touch: a tap and a long press told apart from a mouse's click (useTouchGestures). */
  gestures?: RowGestures;
}

/** The type our drags carry, so a drag of rows is never taken for files from the desktop. */
export const ROWS_DRAG_TYPE = 'application/x-nimbus-files';

export const carriesRows = (event: DragEvent): boolean => Array.from(event.dataTransfer?.types ?? []).includes(ROWS_DRAG_TYPE);

/** Names of the dragged files (written by the browser that started the drag). */
export function draggedNames(event: DragEvent): string[] {
  try {
    const names: unknown = JSON.parse(event.dataTransfer.getData(ROWS_DRAG_TYPE));
    return Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string') : [];
  } catch {
    return [];
  }
}

/** Drop-target props for a folder row, a card or a breadcrumb: highlighted while rows hover over it. */
export function dropTargetProps(onDrop: ((event: DragEvent) => void) | undefined) {
  if (!onDrop) return {};
  const mark = (event: DragEvent, on: boolean) => (event.currentTarget as HTMLElement).classList.toggle('is-drop-target', on);
  return {
    onDragOver: (event: DragEvent) => {
      if (!carriesRows(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      mark(event, true);
    },
    onDragLeave: (event: DragEvent) => mark(event, false),
    onDrop: (event: DragEvent) => {
      if (!carriesRows(event)) return;
      event.preventDefault();
      event.stopPropagation();
      mark(event, false);
      onDrop(event);
    },
  };
}

/** Where a menu opened from an element (the keyboard's Shift+F10, the "⋯" button) appears: under its start. */
export function menuPositionOf(element: Element | null): { x: number; y: number } {
  const rect = element?.getBoundingClientRect();
  return rect ? { x: rect.left + 24, y: rect.bottom } : { x: 40, y: 40 };
}

/** A finger's press, move and lift on a row (none while its name is edited: the finger is in the field). */
function gestureProps(row: Row, gestures: RowGestures | undefined) {
  if (!gestures) return {};
  return {
    onPointerDown: (event: PointerEvent) => gestures.onPointerDown(row, event),
    onPointerMove: gestures.onPointerMove,
    onPointerUp: gestures.onPointerEnd,
    onPointerCancel: gestures.onPointerEnd,
  };
}

/**
 * What a list row and a grid card answer alike: clicks and taps, a long press, the context
 * menu, dragging a row, and dropping rows on a folder.
 */
export function rowInteractionProps(row: Row, editing: boolean, events: RowEvents) {
  const onDropOnFolder = events.onDropOnFolder;
  return {
    ...gestureProps(row, editing ? undefined : events.gestures),
    draggable: !editing && events.onRowDragStart !== undefined,
    onDragStart: (event: DragEvent) => {
      // A browser that drags on a long press (Chrome on Android) would move rows a finger only meant to select.
      if (events.gestures?.byTouch()) event.preventDefault();
      else events.onRowDragStart?.(row, event);
    },
    ...(row.kind === 'folder' && onDropOnFolder ? dropTargetProps((event) => onDropOnFolder(row.name, event)) : {}),
    onClick: (event: MouseEvent) => events.onRowClick(row, event),
    onDoubleClick: () => events.onRowDoubleClick(row),
    onContextMenu: (event: MouseEvent) => {
      event.preventDefault();
      // A finger's long press selects (the "⋯" button is the menu on touch).
      if (!editing && events.gestures?.takeContextMenu(row)) return;
      events.onRowMenu(row, { x: event.clientX, y: event.clientY });
    },
  };
}
