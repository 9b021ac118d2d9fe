import { useCallback, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';
import type { useFileActions } from '../../hooks/useFileActions';
import type { Row } from '../../lib/rows';
import { selectOnly, type Selection } from '../../lib/selection';

/** Renaming a row where it stands (F2, the toolbar, the menu): which row is being edited, and the commit. */
export function useInPlaceRename(
  actions: ReturnType<typeof useFileActions>,
  rowsRef: RefObject<readonly Row[]>,
  setSelection: Dispatch<SetStateAction<Selection>>,
) {
  const [editingKey, setEditingKey] = useState<string | null>(null);
  const onStartRename = useCallback((row: Row) => setEditingKey(row.key), []);
  const onRenameCancel = useCallback(() => setEditingKey(null), []);
  const onRenameCommit = useCallback(
    (row: Row, name: string) => {
      setEditingKey(null);
      const key = `${row.kind === 'folder' ? 'd' : 'f'}:${name}`;
      // The selection follows the new name only once it is the row's: while the name belongs to
      // another row, selecting it would make the next Delete remove that other one.
      if (!rowsRef.current.some((other) => other.key === key)) setSelection(selectOnly(key));
      void actions.rename(row, name).then((renamed) => {
        const settled = renamed ? `${row.kind === 'folder' ? 'd' : 'f'}:${renamed.name}` : row.key;
        // Unless the person has moved on to other rows meanwhile.
        setSelection((current) => (current.active === key || current.active === row.key ? selectOnly(settled) : current));
      });
    },
    [actions, rowsRef, setSelection],
  );
  return { editingKey, onStartRename, onRenameCancel, onRenameCommit };
}
