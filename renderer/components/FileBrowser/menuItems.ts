import type { TFunction } from 'i18next';
import { Copy, Download, Eye, FolderInput, FolderOpen, Link2, Pencil, Trash2 } from 'lucide-react';
import type { Row } from '../../lib/rows';
import type { MenuItem } from '../ContextMenu/ContextMenu';

export interface MenuCommands {
  open: (row: Row) => void;
  /** A plain link for the download when there is one (one file, or one zip); else `download` runs. */
  downloadHref: string | null;
  downloadName: string;
  download: () => void;
  rename: (row: Row) => void;
  move: () => void;
  copy: () => void;
  share: (row: Row) => void;
  remove: () => void;
}

/**
 * The context menu of one row or of the selection (docs/explorer.md: open, download, rename,
 * move to…, copy to…, share, delete): only what applies. Folders are one level deep, so only
 * files move or copy; open, rename and share take one row.
 */
export function menuItems(rows: readonly Row[], commands: MenuCommands, t: TFunction): MenuItem[] {
  const single = rows.length === 1 ? rows[0] : null;
  const onlyFiles = rows.length > 0 && rows.every((row) => row.kind === 'file');
  const zip = !(single?.kind === 'file');
  const items: MenuItem[] = [];
  if (single) {
    items.push({
      id: 'open',
      label: t('explorer:menu.open'),
      icon: single.kind === 'folder' ? FolderOpen : Eye,
      onSelect: () => commands.open(single),
    });
  }
  items.push({
    id: 'download',
    label: zip ? t('explorer:menu.downloadZip') : t('explorer:menu.download'),
    icon: Download,
    ...(commands.downloadHref ? { href: commands.downloadHref, download: commands.downloadName } : { onSelect: commands.download }),
  });
  if (single) items.push({ id: 'rename', label: t('explorer:menu.rename'), icon: Pencil, onSelect: () => commands.rename(single) });
  if (onlyFiles) {
    items.push({ id: 'move', label: t('explorer:menu.move'), icon: FolderInput, onSelect: commands.move });
    items.push({ id: 'copy', label: t('explorer:menu.copy'), icon: Copy, onSelect: commands.copy });
  }
  if (single?.kind === 'file')
    items.push({ id: 'share', label: t('explorer:menu.share'), icon: Link2, onSelect: () => commands.share(single) });
  items.push({ id: 'delete', label: t('explorer:menu.delete'), icon: Trash2, danger: true, onSelect: commands.remove });
  return items;
}
