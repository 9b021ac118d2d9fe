import { useTranslation } from 'react-i18next';
import { ContextMenu, type MenuItem } from '../ContextMenu/ContextMenu';
import { useCanWrite } from '../Session/sessionContext';
import { actionsOn, type ActionCommands, type ActionTarget } from './fileActions';

interface FileContextMenuProps {
  /** The row the menu was opened for, or the selection it belongs to. */
  target: ActionTarget;
  commands: ActionCommands;
  position: { x: number; y: number };
  onClose: () => void;
}

/**
 * The context menu of one row or of the selection (docs/explorer.md): the file actions that
 * apply to it, from the one table the toolbar also shows (fileActions.ts). A download that is
 * one plain link is offered as that link, for the browser to stream itself.
 */
export function FileContextMenu({ target, commands, position, onClose }: FileContextMenuProps) {
  const { t } = useTranslation();
  const items = actionsOn('menu', useCanWrite())
    .filter((action) => action.applies(target))
    .map((action): MenuItem => {
      const link = action.link?.(commands, target);
      return {
        id: action.id,
        label: action.label(t, target),
        icon: action.icon(target),
        danger: action.danger,
        ...(link ? { href: link.href, download: link.saveAs } : { onSelect: () => action.run(commands, target) }),
      };
    });
  const { rows } = target;
  return (
    <ContextMenu
      label={rows.length === 1 ? t('explorer:menu.labelOne', { name: rows[0].name }) : t('explorer:menu.labelMany', { count: rows.length })}
      position={position}
      onClose={onClose}
      items={items}
    />
  );
}
