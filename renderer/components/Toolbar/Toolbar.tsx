import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Copy, Download, FolderInput, FolderOpen, FolderPlus, LayoutGrid, Link2, List, Pencil, Search, Trash2, Upload } from 'lucide-react';
import type { ViewMode } from '../FileBrowser/viewMode';
import './Toolbar.css';

interface ToolbarProps {
  breadcrumb: ReactNode;
  /** The search box's text: while it has some, results from the whole storage replace the listing. */
  search: string;
  onSearchChange: (value: string) => void;
  view: ViewMode;
  onViewChange: (view: ViewMode) => void;
  onUpload: () => void;
  /** Absent where folders cannot be created (inside a folder: folders are one level deep). */
  onNewFolder?: () => void;
  selectedCount: number;
  canDownload: boolean;
  /** The selection downloads as a zip (several files, or a folder). */
  downloadIsZip: boolean;
  canRename: boolean;
  canShare: boolean;
  /** Files only are selected: they can move or be copied. */
  canMove: boolean;
  onDownload: () => void;
  onRename: () => void;
  onMove: () => void;
  onCopy: () => void;
  onShare: () => void;
  onDelete: () => void;
  /** Electron only: show the file in the OS file manager. */
  onReveal?: () => void;
}

function ToolButton(props: {
  label: string;
  title: string;
  icon: typeof Download;
  disabled?: boolean;
  danger?: boolean;
  onClick: () => void;
}) {
  const Icon = props.icon;
  return (
    <button
      type="button"
      className={`icon-button${props.danger ? ' icon-button--danger' : ''}`}
      aria-label={props.label}
      title={props.title}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      <Icon size={17} aria-hidden="true" />
    </button>
  );
}

export function Toolbar(props: ToolbarProps) {
  const { t } = useTranslation();
  const none = props.selectedCount === 0;
  const downloadLabel = props.downloadIsZip ? t('explorer:toolbar.downloadZip') : t('explorer:toolbar.download');
  return (
    <div className="toolbar">
      <div className="toolbar__crumbs">{props.breadcrumb}</div>
      <div className="toolbar__group">
        <ToolButton label={downloadLabel} title={downloadLabel} icon={Download} disabled={!props.canDownload} onClick={props.onDownload} />
        <ToolButton
          label={t('explorer:toolbar.rename')}
          title={t('explorer:toolbar.renameHint')}
          icon={Pencil}
          disabled={!props.canRename}
          onClick={props.onRename}
        />
        <ToolButton
          label={t('explorer:toolbar.move')}
          title={t('explorer:toolbar.move')}
          icon={FolderInput}
          disabled={!props.canMove}
          onClick={props.onMove}
        />
        <ToolButton
          label={t('explorer:toolbar.copy')}
          title={t('explorer:toolbar.copy')}
          icon={Copy}
          disabled={!props.canMove}
          onClick={props.onCopy}
        />
        <ToolButton
          label={t('explorer:toolbar.share')}
          title={t('explorer:toolbar.shareHint')}
          icon={Link2}
          disabled={!props.canShare}
          onClick={props.onShare}
        />
        {props.onReveal ? (
          <ToolButton
            label={t('explorer:toolbar.reveal')}
            title={t('explorer:toolbar.reveal')}
            icon={FolderOpen}
            disabled={!props.canShare}
            onClick={props.onReveal}
          />
        ) : null}
        <ToolButton
          label={t('explorer:toolbar.delete')}
          title={t('explorer:toolbar.deleteHint')}
          icon={Trash2}
          danger
          disabled={none}
          onClick={props.onDelete}
        />
      </div>
      <div className="toolbar__views" role="group" aria-label={t('explorer:toolbar.view')}>
        {(['list', 'grid'] as const).map((mode) => {
          const Icon = mode === 'list' ? List : LayoutGrid;
          const label = t(`explorer:toolbar.${mode}View`);
          return (
            <button
              key={mode}
              type="button"
              className="icon-button"
              aria-label={label}
              title={label}
              aria-pressed={props.view === mode}
              onClick={() => props.onViewChange(mode)}
            >
              <Icon size={17} aria-hidden="true" />
            </button>
          );
        })}
      </div>
      <div className="toolbar__search" role="search">
        <Search size={15} aria-hidden="true" />
        <input
          type="search"
          className="input toolbar__filter"
          placeholder={t('explorer:toolbar.searchPlaceholder')}
          aria-label={t('explorer:toolbar.search')}
          value={props.search}
          maxLength={200}
          onChange={(event) => props.onSearchChange(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') props.onSearchChange('');
          }}
        />
      </div>
      {props.onNewFolder ? (
        <button type="button" className="button" onClick={props.onNewFolder}>
          <FolderPlus size={16} aria-hidden="true" />
          {t('explorer:toolbar.newFolder')}
        </button>
      ) : null}
      <button type="button" className="button button--primary" onClick={props.onUpload}>
        <Upload size={16} aria-hidden="true" />
        {t('explorer:toolbar.upload')}
      </button>
    </div>
  );
}
