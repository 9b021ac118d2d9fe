import { useEffect, type Dispatch, type SetStateAction } from 'react';
import type { Row } from '../../lib/rows';
import { selectOnly, type Selection } from '../../lib/selection';

/** A file to select once its folder is listed. */
interface Reveal {
  username: string;
  folder: string | null;
  name: string;
}

/**
 * "Open containing folder" on a search result: the folder opens with the file selected. Kept
 * outside React because the listing that shows it is usually another FileBrowser (the shells
 * key it by folder, so opening a folder mounts a new one), and the address says where the person
 * is, not what is selected.
 */
let pending: Reveal | null = null;

export function revealAfterOpen(username: string, folder: string | null, name: string): void {
  pending = { username, folder, name };
}

/**
 * Selects the file waiting to be revealed in this folder once its listing shows (`listed`),
 * and gives the list the focus, so the file is highlighted, scrolled to and acted on by the
 * keyboard. A file gone meanwhile is forgotten.
 */
export function useRevealedFile(
  username: string,
  folder: string | null,
  rows: readonly Row[],
  listed: boolean,
  setSelection: Dispatch<SetStateAction<Selection>>,
  refocusList: () => void,
): void {
  useEffect(() => {
    if (!listed || pending === null || pending.username !== username || pending.folder !== folder) return;
    const key = `f:${pending.name}`;
    pending = null;
    if (!rows.some((row) => row.key === key)) return;
    setSelection(selectOnly(key));
    refocusList();
  }, [username, folder, rows, listed, setSelection, refocusList]);
}
