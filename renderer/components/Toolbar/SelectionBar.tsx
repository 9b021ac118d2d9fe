import { useTranslation } from 'react-i18next';
import { MoreHorizontal, X } from 'lucide-react';
import { FILE_ACTIONS, isOffered, type ActionCommands, type ActionTarget, type FileAction } from '../FileBrowser/fileActions';
import { useCanWrite } from '../Session/sessionContext';
import { menuPositionOf } from '../FileTable/rowEvents';
import { useCompact } from '../FileTable/useCompact';
import { ToolTile } from './Toolbar';

/** What a thumb reaches for most, in the bar; everything else (rename, copy, versions…) is under "More". */
const BAR_ACTIONS: readonly FileAction['id'][] = ['download', 'share', 'move', 'delete'];

interface SelectionBarProps {
  target: ActionTarget;
  commands: ActionCommands;
  /** Leaves selection mode: nothing selected. */
  onClear: () => void;
  /** The context menu for the whole selection, at a point. */
  onMore: (position: { x: number; y: number }) => void;
}

/**
 * A phone's selection mode (or any selection on a small or touch screen): a bar at the bottom,
 * where a thumb is, saying how many are selected, with a way out and the file actions as
 * labelled tiles. On a desktop the toolbar's icons do this, so the bar is not there.
 */
export function SelectionBar({ target, commands, onClear, onMore }: SelectionBarProps) {
  const { t } = useTranslation();
  const compact = useCompact();
  const canWrite = useCanWrite();
  const count = target.rows.length;
  if (!compact || count === 0) return null;
  const actions = BAR_ACTIONS.map((id) => FILE_ACTIONS.find((action) => action.id === id)!).filter(
    (action) => isOffered(action, canWrite) && action.applies(target),
  );
  return (
    <div className="selection-bar" role="group" aria-label={t('explorer:selectionBar.label')}>
      <div className="selection-bar__head">
        <button
          type="button"
          className="icon-button selection-bar__clear"
          aria-label={t('explorer:selectionBar.clear')}
          title={t('explorer:selectionBar.clear')}
          onClick={onClear}
        >
          <X size={20} aria-hidden="true" />
        </button>
        <span className="selection-bar__count" role="status">
          {t('explorer:selectionBar.count', { count })}
        </span>
      </div>
      <div className="selection-bar__actions">
        {actions.map((action) => {
          const label = action.label(t, target);
          // The visible word is the accessible name; the action's full wording ("Move to…") its tooltip.
          return (
            <ToolTile
              key={action.id}
              text={t(`explorer:selectionBar.${action.id}`)}
              title={action.hint?.(t, target) ?? label}
              icon={action.icon(target)}
              danger={action.danger}
              onClick={() => action.run(commands, target)}
            />
          );
        })}
        <ToolTile
          text={t('explorer:selectionBar.more')}
          title={t('explorer:selectionBar.moreHint')}
          icon={MoreHorizontal}
          popup
          onClick={(event) => onMore(menuPositionOf(event.currentTarget))}
        />
      </div>
    </div>
  );
}
