import { ChevronRight, Folder, HardDrive } from 'lucide-react';
import './Breadcrumb.css';

interface BreadcrumbProps {
  username: string;
  folder: string | null;
  onOpenRoot: () => void;
}

/** user › folder; every part but the last goes back up. */
export function Breadcrumb({ username, folder, onOpenRoot }: BreadcrumbProps) {
  return (
    <nav aria-label="Breadcrumb" className="crumbs">
      <ol>
        <li>
          {folder === null ? (
            <span className="crumbs__item crumbs__item--current" aria-current="page">
              <HardDrive size={16} aria-hidden="true" />
              {username}
            </span>
          ) : (
            <button type="button" className="crumbs__item" onClick={onOpenRoot}>
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
