import type { MouseEvent, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { FolderPlus, FolderUp, LayoutGrid, List, Search, Upload, type LucideIcon } from 'lucide-react';
import { actionsOn, type ActionCommands, type ActionTarget } from '../FileBrowser/fileActions';
import type { ViewMode } from '../FileBrowser/viewMode';
import { useCompact } from '../FileTable/useCompact';
import { useCanWrite } from '../Session/sessionContext';
import './Toolbar.css';

interface ToolbarProps {
  breadcrumb: ReactNode;
  /** The search box's text: while it has some, results from the whole storage replace the listing. */
  search: string;
  onSearchChange: (value: string) => void;
  view: ViewMode;
  onViewChange: (view: ViewMode) => void;
  onUpload: () => void;
  /** Absent where a folder cannot be uploaded as a tree. Upload, New folder and this are left out for a caller who may only read. */
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

/**
 * A tool on a phone or touch screen: its icon over a short label a person reads (a finger has
 * no hover, so no tooltip). The accessible name is the visible text, or `label` when it says
 * more ("List view" for "List"), which always holds the text: what is seen is what a voice user says.
 */
export function ToolTile(props: {
  text: string;
  label?: string;
  title?: string;
  icon: LucideIcon;
  primary?: boolean;
  danger?: boolean;
  pressed?: boolean;
  disabled?: boolean;
  popup?: boolean;
  onClick: (event: MouseEvent<HTMLButtonElement>) => void;
}) {
  const Icon = props.icon;
  const tone = props.primary ? ' tool-tile--primary' : props.danger ? ' tool-tile--danger' : '';
  return (
    <button
      type="button"
      className={`tool-tile${tone}`}
      aria-label={props.label}
      title={props.title}
      aria-pressed={props.pressed}
      aria-haspopup={props.popup ? 'menu' : undefined}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      <Icon size={19} aria-hidden="true" />
      <span className="tool-tile__text">{props.text}</span>
    </button>
  );
}

/** List or grid: two pressed-or-not buttons (tiles with a short label on a phone). */
function ViewSwitch({ view, compact, onViewChange }: { view: ViewMode; compact: boolean; onViewChange: (view: ViewMode) => void }) {
  const { t } = useTranslation();
  return (
    <div className="toolbar__views" role="group" aria-label={t('explorer:toolbar.view')}>
      {(['list', 'grid'] as const).map((mode) => {
        const icon = mode === 'list' ? List : LayoutGrid;
        const label = t(`explorer:toolbar.${mode}View`);
        const pressed = view === mode;
        if (compact) {
          const text = t(`explorer:toolbar.${mode}Short`);
          return <ToolTile key={mode} text={text} label={label} icon={icon} pressed={pressed} onClick={() => onViewChange(mode)} />;
        }
        const Icon = icon;
        return (
          <button
            key={mode}
            type="button"
            className="icon-button"
            aria-label={label}
            title={label}
            aria-pressed={pressed}
            onClick={() => onViewChange(mode)}
          >
            <Icon size={17} aria-hidden="true" />
          </button>
        );
      })}
    </div>
  );
}

/**
 * The explorer's toolbar. On a desktop: the breadcrumb, the file actions as icons with
 * tooltips, the view switch, search and the upload buttons. On a phone or touch screen
 * (useCompact): the breadcrumb, one line of labelled tiles and the search box; the file
 * actions move to the selection bar, which shows while something is selected (SelectionBar).
 */
export function Toolbar(props: ToolbarProps) {
  const { t } = useTranslation();
  const compact = useCompact();
  const canWrite = useCanWrite();
  const { target, commands } = props;
  const onNewFolder = canWrite ? props.onNewFolder : undefined;
  const onUploadFolder = canWrite ? props.onUploadFolder : undefined;
  const onUpload = canWrite ? props.onUpload : undefined;
  const search = (
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
  );
  if (compact) {
    return (
      <div className="toolbar toolbar--compact">
        <div className="toolbar__crumbs">{props.breadcrumb}</div>
        <div className="toolbar__tiles">
          <ViewSwitch view={props.view} compact onViewChange={props.onViewChange} />
          {onNewFolder ? <ToolTile text={t('explorer:toolbar.newFolder')} icon={FolderPlus} onClick={onNewFolder} /> : null}
          {onUploadFolder ? <ToolTile text={t('explorer:toolbar.uploadFolder')} icon={FolderUp} onClick={onUploadFolder} /> : null}
          {onUpload ? <ToolTile text={t('explorer:toolbar.upload')} icon={Upload} primary onClick={onUpload} /> : null}
        </div>
        {search}
      </div>
    );
  }
  return (
    <div className="toolbar">
      <div className="toolbar__crumbs">{props.breadcrumb}</div>
      <div className="toolbar__group">
        {/* Every action stays in its place, disabled when it does not apply (the menu lists only those that do). */}
        {actionsOn('toolbar', canWrite).map((action) => {
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
      <ViewSwitch view={props.view} compact={false} onViewChange={props.onViewChange} />
      {search}
      {onNewFolder ? (
        <button type="button" className="button" onClick={onNewFolder}>
          <FolderPlus size={16} aria-hidden="true" />
          {t('explorer:toolbar.newFolder')}
        </button>
      ) : null}
      {onUploadFolder ? (
        <ToolButton
          label={t('explorer:toolbar.uploadFolder')}
          title={t('explorer:toolbar.uploadFolder')}
          icon={FolderUp}
          onClick={onUploadFolder}
        />
      ) : null}
      {onUpload ? (
        <button type="button" className="button button--primary" onClick={onUpload}>
          <Upload size={16} aria-hidden="true" />
          {t('explorer:toolbar.upload')}
        </button>
      ) : null}
    </div>
  );
}
