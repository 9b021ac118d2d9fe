import type { DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronRight, Folder, HardDrive, Search } from 'lucide-react';
import { dropTargetProps } from '../FileTable/rowEvents';
import './Breadcrumb.css';

interface BreadcrumbProps {
  username: string;
  /** The open folder's path (names joined by `/`), null at the user's root. */
  folder: string | null;
  /** Opens a folder above the open one (null: the root). */
  onOpen: (folder: string | null) => void;
  /** Files dragged from the list onto a crumb above the open folder (null: the user's root). */
  onDropOn?: (folder: string | null, event: DragEvent) => void;
  /** The landmark's name, when it is not the explorer's own breadcrumb (the move dialog's). */
  label?: string;
  /**
   * The search whose results are shown instead of the folder: the last crumb says so, in place
   * of the folder's (a search covers every folder, whichever one it was typed in).
   */
  search?: string;
}

/** One crumb per level of the path: `photos/2024` is photos and photos/2024. */
function crumbsOf(folder: string | null): { name: string; path: string }[] {
  if (folder === null) return [];
  const names = folder.split('/');
  return names.map((name, i) => ({ name, path: names.slice(0, i + 1).join('/') }));
}

/** user › folder › subfolder…; every part but the last goes back up to it and takes files dragged onto it. */
export function Breadcrumb({ username, folder, onOpen, onDropOn, label, search }: BreadcrumbProps) {
  const { t } = useTranslation();
  const crumbs = search ? [] : crumbsOf(folder);
  const dropOnto = (target: string | null) => dropTargetProps(onDropOn && ((event: DragEvent) => onDropOn(target, event)));
  return (
    <nav aria-label={label ?? t('explorer:breadcrumb.label')} className="crumbs">
      <ol>
        <li>
          {folder === null && !search ? (
            <span className="crumbs__item crumbs__item--current" aria-current="page">
              <HardDrive size={16} aria-hidden="true" />
              {username}
            </span>
          ) : (
            <button type="button" className="crumbs__item" onClick={() => onOpen(null)} {...dropOnto(null)}>
              <HardDrive size={16} aria-hidden="true" />
              {username}
            </button>
          )}
        </li>
        {crumbs.map((crumb, i) => (
          <li key={crumb.path}>
            <ChevronRight size={16} className="crumbs__sep" aria-hidden="true" />
            {i === crumbs.length - 1 ? (
              <span className="crumbs__item crumbs__item--current" aria-current="page">
                <Folder size={16} aria-hidden="true" />
                {crumb.name}
              </span>
            ) : (
              <button type="button" className="crumbs__item" onClick={() => onOpen(crumb.path)} {...dropOnto(crumb.path)}>
                <Folder size={16} aria-hidden="true" />
                {crumb.name}
              </button>
            )}
          </li>
        ))}
        {search ? (
          <li>
            <ChevronRight size={16} className="crumbs__sep" aria-hidden="true" />
            <span className="crumbs__item crumbs__item--current crumbs__item--search" aria-current="page">
              <Search size={16} aria-hidden="true" />
              <span className="crumbs__text" title={t('search:crumb', { query: search })}>
                {t('search:crumb', { query: search })}
              </span>
            </span>
          </li>
        ) : null}
      </ol>
    </nav>
  );
}
