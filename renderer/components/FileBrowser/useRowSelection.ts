import { useMemo, useRef, useState } from 'react';
import type { Row } from '../../lib/rows';
import { EMPTY_SELECTION, pruneSelection, type Selection } from '../../lib/selection';

/**
 * The selection over `rows`, kept to rows that still exist. `selectedRef` follows it for the
 * callbacks that must stay the same while it changes (the rows' own handlers).
 */
export function useRowSelection(rows: readonly Row[]) {
  const [rawSelection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const selection = useMemo(
    () =>
      pruneSelection(
        rawSelection,
        rows.map((row) => row.key),
      ),
    [rawSelection, rows],
  );
  const selectedRows = useMemo(() => rows.filter((row) => selection.selected.has(row.key)), [rows, selection]);
  const selectedRef = useRef(selectedRows);
  selectedRef.current = selectedRows;
  return { selection, setSelection, selectedRows, selectedRef };
}
