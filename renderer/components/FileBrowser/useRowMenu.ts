import { useCallback, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';
import type { Row } from '../../lib/rows';
import { selectOnly, type Selection } from '../../lib/selection';

/** The open context menu: the rows it acts on and where it stands. */
export interface RowMenu {
  rows: Row[];
  position: { x: number; y: number };
}

/**
 * The context menu of a row (right-click, Shift+F10, the "⋯" button): on a row of the selection
 * it acts on the whole selection; a row outside it becomes the selection, as in Finder, so the
 * menu acts on what is highlighted. Closing gives the focus back to the list.
 */
export function useRowMenu(selectedRef: RefObject<Row[]>, setSelection: Dispatch<SetStateAction<Selection>>, refocusList: () => void) {
  const [menu, setMenu] = useState<RowMenu | null>(null);
  const onMenu = useCallback(
    (row: Row, position: { x: number; y: number }) => {
      const inSelection = selectedRef.current.some((other) => other.key === row.key);
      if (!inSelection) setSelection(selectOnly(row.key));
      setMenu({ rows: inSelection ? selectedRef.current : [row], position });
    },
    [selectedRef, setSelection],
  );
  const closeMenu = useCallback(() => {
    setMenu(null);
    refocusList();
  }, [refocusList]);
  return { menu, onMenu, closeMenu };
}
