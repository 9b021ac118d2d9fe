import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronRight, Folder } from 'lucide-react';
import type { Folder as FolderInfo } from '../../../shared/types';
import { useFolders } from '../../hooks/queries';
import { childFolder, folderName, parentFolder } from '../../lib/places';
import type { Refusal } from '../../lib/moveTargets';

interface FolderPickerProps {
  username: string;
  /** The folder open in the picker (null: the root). */
  at: string | null;
  onOpen: (folder: string | null) => void;
  /** Why a folder cannot take the items (lib/moveTargets.ts), null when it can. */
  refusal: (folder: string | null) => Refusal | null;
}

/** A folder's path from its listing entry (older daemons leave `path` out at the root). */
const pathOf = (at: string | null, folder: FolderInfo) => folder.path ?? childFolder(at, folder.name);

/**
 * The folders inside the open one, one tab stop (roving tabindex): arrows, Home and End move,
 * Enter, → or a click opens, Backspace, ← or Alt+↑ goes up. A folder that cannot take the
 * items is greyed and says why; one being moved is not opened (nothing below it can take them).
 */
export function FolderPicker({ username, at, onOpen, refusal }: FolderPickerProps) {
  const { t } = useTranslation();
  const folders = useFolders(username, at);
  const entries = folders.data ?? [];
  const [active, setActive] = useState(0);
  const tabStop = Math.min(active, Math.max(entries.length - 1, 0));
  const listRef = useRef<HTMLDivElement>(null);
  const reasonId = useId();
  // The focus goes into the listing once it has come (the dialog makes a new picker per folder).
  const focusPending = useRef(true);
  useEffect(() => {
    if (!focusPending.current || folders.isPending) return;
    focusPending.current = false;
    const entry = listRef.current?.querySelector<HTMLElement>('[data-entry][tabindex="0"]');
    (entry ?? listRef.current)?.focus();
  });

  function focusEntry(index: number) {
    const target = Math.min(Math.max(index, 0), entries.length - 1);
    setActive(target);
    listRef.current?.querySelectorAll<HTMLElement>('[data-entry]')[target]?.focus();
  }
  const openable = (path: string) => {
    const why = refusal(path);
    return why !== 'itself' && why !== 'inside';
  };

  function onKeyDown(event: KeyboardEvent) {
    if (event.ctrlKey || event.metaKey) return;
    const up = event.key === 'Backspace' || event.key === 'ArrowLeft' || (event.key === 'ArrowUp' && event.altKey);
    const moves: Record<string, number> = { ArrowDown: tabStop + 1, ArrowUp: tabStop - 1, Home: 0, End: entries.length - 1 };
    if (up) {
      if (at !== null) onOpen(parentFolder(at));
    } else if (event.key in moves && !event.altKey) {
      focusEntry(moves[event.key]);
    } else if ((event.key === 'Enter' || event.key === 'ArrowRight') && entries[tabStop] && event.target !== event.currentTarget) {
      const path = pathOf(at, entries[tabStop]);
      if (openable(path)) onOpen(path);
    } else {
      return;
    }
    event.preventDefault();
  }

  const place = at === null ? username : folderName(at);
  let body;
  if (folders.isPending) body = <p role="status">{t('explorer:move.loading')}</p>;
  else if (folders.isError) body = <p role="alert">{t('explorer:move.failed')}</p>;
  else if (entries.length === 0) body = <p className="move-picker__empty">{t('explorer:move.empty')}</p>;
  else
    body = (
      <ul className="move-picker__entries">
        {entries.map((folder, index) => {
          const path = pathOf(at, folder);
          const why = refusal(path);
          const blocked = !openable(path);
          return (
            <li key={folder.name}>
              <button
                type="button"
                data-entry
                className="move-picker__entry"
                tabIndex={index === tabStop ? 0 : -1}
                aria-disabled={blocked || undefined}
                aria-labelledby={`${reasonId}-${index}-name`}
                aria-describedby={why ? `${reasonId}-${index}` : undefined}
                onClick={() => (blocked ? undefined : onOpen(path))}
                onFocus={() => setActive(index)}
              >
                <Folder size={16} aria-hidden="true" className="move-picker__icon" />
                <span id={`${reasonId}-${index}-name`} className="move-picker__name">
                  {folder.name}
                </span>
                {why ? (
                  <span id={`${reasonId}-${index}`} className="move-picker__reason">
                    {t(`explorer:move.refused.${why}`)}
                  </span>
                ) : (folder.folderCount ?? 0) > 0 ? (
                  <ChevronRight size={16} aria-hidden="true" className="move-picker__more" />
                ) : null}
              </button>
            </li>
          );
        })}
      </ul>
    );

  return (
    <div
      ref={listRef}
      className="move-picker__list"
      role="group"
      aria-label={t('explorer:move.listLabel', { name: place })}
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      {body}
    </div>
  );
}
