import { useCallback, useEffect, useRef, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';
import type { useFileActions } from '../../hooks/useFileActions';
import type { Row } from '../../lib/rows';
import { selectOnly, type Selection } from '../../lib/selection';
import type { RenameRefusal } from '../RenameEditor/renameRefusal';

/**
 * Renaming a row where it stands (F2, the toolbar, the menu): which row is being edited, the
 * commit, and the daemon's refusal of a taken name, which sends the typed name back to the
 * editor (provided to it through RenameRefusalContext) instead of closing it.
 */
export function useInPlaceRename(
  actions: ReturnType<typeof useFileActions>,
  rowsRef: RefObject<readonly Row[]>,
  setSelection: Dispatch<SetStateAction<Selection>>,
  refocusList: () => void,
) {
  const [editingKey, setEditingKey] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<RenameRefusal | null>(null);
  // The answer comes later: it applies only if the person is still renaming that row.
  const editing = useRef<string | null>(null);
  const edit = useCallback((key: string | null) => {
    editing.current = key;
    setEditingKey(key);
    setRefusal(null);
  }, []);

  // The editor held the focus and goes with the daemon's answer: once it is gone from the page
  // (after React's commit, not on a timer that may run before it), the keyboard goes on in the
  // list (F2 again, arrows), not from the page's top.
  const refocusAfterClose = useRef(false);
  useEffect(() => {
    if (editingKey !== null || !refocusAfterClose.current) return;
    refocusAfterClose.current = false;
    if (document.activeElement === document.body || document.activeElement === null) refocusList();
  }, [editingKey, refocusList]);

  const onStartRename = useCallback((row: Row) => edit(row.key), [edit]);
  const onRenameCancel = useCallback(() => edit(null), [edit]);
  const onRenameCommit = useCallback(
    (row: Row, name: string) => {
      // The editor stays on the row until the daemon answers (a new name shown at once takes its
      // place; a refused one brings it back with what was typed).
      setRefusal(null);
      const key = `${row.kind === 'folder' ? 'd' : 'f'}:${name}`;
      // The selection follows the new name only once it is the row's: while the name belongs to
      // another row, selecting it would make the next Delete remove that other one.
      if (!rowsRef.current.some((other) => other.key === key)) setSelection(selectOnly(key));
      let refused: string | null = null;
      void actions
        .rename(row, name, (reason) => {
          refused = reason;
        })
        .then((renamed) => {
          const settled = renamed ? `${row.kind === 'folder' ? 'd' : 'f'}:${renamed.name}` : row.key;
          // Unless the person has moved on to other rows meanwhile.
          setSelection((current) => (current.active === key || current.active === row.key ? selectOnly(settled) : current));
          if (editing.current !== row.key) return;
          if (refused !== null) return setRefusal({ name, reason: refused });
          refocusAfterClose.current = true;
          edit(null);
        });
    },
    [actions, rowsRef, setSelection, edit],
  );
  return { editingKey, refusal, onStartRename, onRenameCancel, onRenameCommit };
}
