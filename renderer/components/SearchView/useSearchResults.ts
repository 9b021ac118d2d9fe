import { useCallback, useState } from 'react';
import type { FileEntry } from '../../../shared/types';
import type { Row } from '../../lib/rows';
import type { ActionTarget } from '../FileBrowser/fileActions';
import { revealAfterOpen } from '../FileBrowser/revealFile';
import { useSession } from '../Session/sessionContext';
import { useSearchSummary } from './searchSummary';

/**
 * What the file browser needs while search results replace its listing (FileBrowser.tsx): the
 * result its toolbar acts on, its status line, and the ways out of the search — to a folder, or
 * to a result's folder with the result selected ("Open containing folder").
 */
export function useSearchResults(
  username: string,
  query: string,
  setSearch: (text: string) => void,
  onOpenFolder: (folder: string | null) => void,
) {
  const [chosen, setChosen] = useState<Row | null>(null);
  const inShell = useSession().bridge !== null;
  const summary = useSearchSummary(username, query);
  const leave = useCallback(
    (folder: string | null) => {
      setSearch('');
      onOpenFolder(folder);
    },
    [setSearch, onOpenFolder],
  );
  const showFile = useCallback(
    (file: FileEntry) => {
      revealAfterOpen(username, file.folder, file.name);
      leave(file.folder);
    },
    [username, leave],
  );
  const target: ActionTarget = { rows: chosen ? [chosen] : [], everything: false, inShell, search: true };
  return { target, setChosen, summary, leave, showFile };
}
