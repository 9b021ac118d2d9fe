import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { FolderPlus, FolderUp, LayoutGrid, List, Search, Upload, type LucideIcon } from 'lucide-react';
import { actionsOn, type ActionCommands, type ActionTarget } from '../FileBrowser/fileActions';
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
  /** Absent where a folder cannot be uploaded as a tree. */
  onUploadFolder?: () => void;
  /** Absent where folders cannot be created. */
  onNewFolder?: () => void;
  /** The selection, which the file actions act on. */
  target: ActionTarget;
  commands: ActionCommands;
}

function ToolButton(props: { label: string; title: string; icon: LucideIcon; disabled?: boolean; danger?: boolean; onClick: () => void }) {
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
  const { target, commands } = props;
  return (
    <div className="toolbar">
      <div className="toolbar__crumbs">{props.breadcrumb}</div>
      <div className="toolbar__group">
        {/* Every action stays in its place, disabled when it does not apply (the menu lists only those that do). */}
        {actionsOn('toolbar').map((action) => {
          const applies = action.applies(target);
          if (!applies && action.hiddenUnlessApplies) return null;
          const label = action.label(t, target);
          return (
            <ToolButton
              key={action.id}
              label={label}
              title={action.hint?.(t, target) ?? label}
              icon={action.icon(target)}
              danger={action.danger}
              disabled={!applies}
              onClick={() => action.run(commands, target)}
            />
          );
        })}
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
      {props.onUploadFolder ? (
        <ToolButton
          label={t('explorer:toolbar.uploadFolder')}
          title={t('explorer:toolbar.uploadFolder')}
          icon={FolderUp}
          onClick={props.onUploadFolder}
        />
      ) : null}
      <button type="button" className="button button--primary" onClick={props.onUpload}>
        <Upload size={16} aria-hidden="true" />
        {t('explorer:toolbar.upload')}
      </button>
    </div>
  );
}
