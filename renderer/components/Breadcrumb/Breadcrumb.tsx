import type { DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronRight, Folder, HardDrive } from 'lucide-react';
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
}

/** One crumb per level of the path: `photos/2024` is photos and photos/2024. */
function crumbsOf(folder: string | null): { name: string; path: string }[] {
  if (folder === null) return [];
  const names = folder.split('/');
  return names.map((name, i) => ({ name, path: names.slice(0, i + 1).join('/') }));
}

/** user › folder › subfolder…; every part but the last goes back up to it and takes files dragged onto it. */
export function Breadcrumb({ username, folder, onOpen, onDropOn, label }: BreadcrumbProps) {
  const { t } = useTranslation();
  const crumbs = crumbsOf(folder);
  const dropOnto = (target: string | null) => dropTargetProps(onDropOn && ((event: DragEvent) => onDropOn(target, event)));
  return (
    <nav aria-label={label ?? t('explorer:breadcrumb.label')} className="crumbs">
      <ol>
        <li>
          {folder === null ? (
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
      </ol>
    </nav>
  );
}
