import { useCallback, type Dispatch, type DragEvent, type RefObject, type SetStateAction } from 'react';
import type { useFileActions } from '../../hooks/useFileActions';
import { childFolder } from '../../lib/places';
import type { Row } from '../../lib/rows';
import { selectOnly, type Selection } from '../../lib/selection';
import { ROWS_DRAG_TYPE, draggedNames } from '../FileTable/rowEvents';

interface RowDragOptions {
  folder: string | null;
  actions: ReturnType<typeof useFileActions>;
  rowsRef: RefObject<readonly Row[]>;
  selectedRef: RefObject<readonly Row[]>;
  setSelection: Dispatch<SetStateAction<Selection>>;
}

/**
 * Dragging rows (files and folders) onto a folder (or the breadcrumb) moves them; the whole
 * selection goes when the row is in it. A folder is never moved into itself or below itself.
 */
export function useRowDrag({ folder, actions, rowsRef, selectedRef, setSelection }: RowDragOptions) {
  const onRowDragStart = useCallback(
    (row: Row, event: DragEvent) => {
      const inSelection = selectedRef.current.some((other) => other.key === row.key);
      const moving = inSelection ? selectedRef.current : [row];
      if (!inSelection) setSelection(selectOnly(row.key));
      event.dataTransfer.setData(ROWS_DRAG_TYPE, JSON.stringify(moving.map((other) => other.name)));
      event.dataTransfer.effectAllowed = 'move';
    },
    [selectedRef, setSelection],
  );
  const dropInto = useCallback(
    (to: string | null, event: DragEvent) => {
      const names = new Set(draggedNames(event));
      const moving = rowsRef.current.filter(
        (row) => names.has(row.name) && (row.kind === 'file' || !isWithin(to, childFolder(folder, row.name))),
      );
      if (moving.length > 0 && to !== folder) void actions.move(moving, to);
    },
    [actions, folder, rowsRef],
  );
  const onDropOnFolder = useCallback((name: string, event: DragEvent) => dropInto(childFolder(folder, name), event), [dropInto, folder]);
  return { onRowDragStart, dropInto, onDropOnFolder };
}

/** Whether `to` is the folder `path` or one below it (no folder moves into its own subtree). */
function isWithin(to: string | null, path: string): boolean {
  return to !== null && (to === path || to.startsWith(`${path}/`));
}
