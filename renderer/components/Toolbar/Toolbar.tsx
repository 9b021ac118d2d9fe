import type { ReactNode } from 'react';
import { Download, FolderOpen, FolderPlus, Link2, Pencil, Search, Trash2, Upload } from 'lucide-react';
import './Toolbar.css';

interface ToolbarProps {
  breadcrumb: ReactNode;
  filter: string;
  onFilterChange: (value: string) => void;
  onUpload: () => void;
  /** Absent where folders cannot be created (inside a folder: folders are one level deep). */
  onNewFolder?: () => void;
  selectedCount: number;
  canDownload: boolean;
  canRename: boolean;
  canShare: boolean;
  onDownload: () => void;
  onRename: () => void;
  onShare: () => void;
  onDelete: () => void;
  /** Electron only: show the file in the OS file manager. */
  onReveal?: () => void;
}

export function Toolbar(props: ToolbarProps) {
  const none = props.selectedCount === 0;
  return (
    <div className="toolbar">
      <div className="toolbar__crumbs">{props.breadcrumb}</div>
      <div className="toolbar__group">
        <button
          type="button"
          className="icon-button"
          aria-label="Download"
          title="Download (Enter)"
          disabled={!props.canDownload}
          onClick={props.onDownload}
        >
          <Download size={17} aria-hidden="true" />
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label="Rename"
          title="Rename (F2)"
          disabled={!props.canRename}
          onClick={props.onRename}
        >
          <Pencil size={16} aria-hidden="true" />
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label="Share"
          title="Share link"
          disabled={!props.canShare}
          onClick={props.onShare}
        >
          <Link2 size={17} aria-hidden="true" />
        </button>
        {props.onReveal ? (
          <button
            type="button"
            className="icon-button"
            aria-label="Show in file manager"
            title="Show in file manager"
            disabled={!props.canRename}
            onClick={props.onReveal}
          >
            <FolderOpen size={17} aria-hidden="true" />
          </button>
        ) : null}
        <button
          type="button"
          className="icon-button icon-button--danger"
          aria-label="Delete"
          title="Delete (Del)"
          disabled={none}
          onClick={props.onDelete}
        >
          <Trash2 size={16} aria-hidden="true" />
        </button>
      </div>
      <div className="toolbar__search">
        <Search size={15} aria-hidden="true" />
        <input
          type="search"
          className="input toolbar__filter"
          placeholder="Filter by name"
          aria-label="Filter by name"
          value={props.filter}
          onChange={(event) => props.onFilterChange(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') props.onFilterChange('');
          }}
        />
      </div>
      {props.onNewFolder ? (
        <button type="button" className="button" onClick={props.onNewFolder}>
          <FolderPlus size={16} aria-hidden="true" />
          New folder
        </button>
      ) : null}
      <button type="button" className="button button--primary" onClick={props.onUpload}>
        <Upload size={16} aria-hidden="true" />
        Upload
      </button>
    </div>
  );
}
