import type { DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronRight, Folder, HardDrive } from 'lucide-react';
import { dropTargetProps } from '../FileTable/rowEvents';
import './Breadcrumb.css';

interface BreadcrumbProps {
  username: string;
  folder: string | null;
  onOpenRoot: () => void;
  /** Files dragged from the list onto the user's root (shown inside a folder only). */
  onDropOnRoot?: (event: DragEvent) => void;
}

/** user › folder; every part but the last goes back up, and takes files dragged onto it. */
export function Breadcrumb({ username, folder, onOpenRoot, onDropOnRoot }: BreadcrumbProps) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t('explorer:breadcrumb.label')} className="crumbs">
      <ol>
        <li>
          {folder === null ? (
            <span className="crumbs__item crumbs__item--current" aria-current="page">
              <HardDrive size={16} aria-hidden="true" />
              {username}
            </span>
          ) : (
            <button type="button" className="crumbs__item" onClick={onOpenRoot} {...dropTargetProps(onDropOnRoot)}>
              <HardDrive size={16} aria-hidden="true" />
              {username}
            </button>
          )}
        </li>
        {folder !== null ? (
          <li>
            <ChevronRight size={16} className="crumbs__sep" aria-hidden="true" />
            <span className="crumbs__item crumbs__item--current" aria-current="page">
              <Folder size={16} aria-hidden="true" />
              {folder}
            </span>
          </li>
        ) : null}
      </ol>
    </nav>
  );
}
