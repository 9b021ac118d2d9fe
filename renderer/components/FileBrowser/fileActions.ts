import type { TFunction } from 'i18next';
import {
  Copy,
  Download,
  Eye,
  FilePenLine,
  FolderInput,
  FolderOpen,
  FolderSearch,
  History,
  Inbox,
  Link2,
  Pencil,
  Trash2,
  type LucideIcon,
} from 'lucide-react';
import { FOLDER_TRANSFER } from '../../hooks/useFileActions';
import type { Row } from '../../lib/rows';
import { formatBytes } from '../../lib/format';
import { EDIT_LIMIT_BYTES, fitsEditor, isTextFile } from '../TextEditor/editableText';
import { hasRows, onlyFiles, single, singleFile, singleFolder, type ActionTarget, type FileRowOf, type FolderRowOf } from './actionTarget';

export type { ActionTarget, FileRowOf, FolderRowOf } from './actionTarget';

/** What the actions run, supplied by the file browser. */
export interface ActionCommands {
  open(row: Row): void;
  download(target: ActionTarget): void;
  /** The one plain link that downloads the target, when there is one (an `<a download>` in the menu). */
  downloadLink(target: ActionTarget): { href: string; saveAs: string } | null;
  rename(row: Row): void;
  /** A text file opened in the editor (a file over the size limit opens to say why it is not edited). */
  edit(row: FileRowOf): void;
  move(rows: readonly Row[]): void;
  copy(rows: readonly Row[]): void;
  /** A file's link, or a folder's (its whole tree), shown and made first when there is none. */
  share(row: FileRowOf | FolderRowOf): void;
  /** A folder's upload link (a drop box into it), shown and made first when there is none. */
  uploadLink(row: FolderRowOf): void;
  /** A file's earlier versions (docs/versions.md), to download or restore. */
  versions(row: FileRowOf): void;
  reveal(row: FileRowOf): void;
  /** A search result's folder, opened with the file selected. */
  openFolder(row: FileRowOf): void;
  remove(rows: readonly Row[]): void;
}

export type Surface = 'toolbar' | 'menu';

/**
 * One file action, for every surface that offers it. Shortcuts are the list's own keys
 * (FileTable/listKeys.ts: F2, Delete); the toolbar's tooltip names them in the person's
 * language ("Eliminar (Supr)"), so they live in the hint's text.
 */
export interface FileAction {
  id: 'open' | 'openFolder' | 'download' | 'edit' | 'rename' | 'move' | 'copy' | 'share' | 'uploadLink' | 'versions' | 'reveal' | 'delete';
  surfaces: readonly Surface[];
  label(t: TFunction, target: ActionTarget): string;
  /** The toolbar's tooltip, when it says more than the label (a shortcut, what is shared). */
  hint?(t: TFunction, target: ActionTarget): string;
  icon(target: ActionTarget): LucideIcon;
  danger?: boolean;
  /** It changes storage (or makes a link): a caller who may only read is not offered it (useCanWrite). */
  writes?: boolean;
  /** Whether it applies to the target: the menu lists it only then, the toolbar enables it only then. */
  applies(target: ActionTarget): boolean;
  /** The toolbar leaves it out, rather than greyed, when it does not apply. */
  hiddenUnlessApplies?: boolean;
  run(commands: ActionCommands, target: ActionTarget): void;
  /** The same as a plain link, when there is one: the menu offers it as an `<a download>` the browser streams (the toolbar's button runs `run`). */
  link?(commands: ActionCommands, target: ActionTarget): { href: string; saveAs: string } | null;
}

/** The same whatever the rows. */
function always<T>(value: T): () => T {
  return () => value;
}

/** Move to… and Copy to…: files, and folders where the daemon moves or copies them (FOLDER_TRANSFER), to a folder picked in a dialog. */
const transfer = (id: 'move' | 'copy', label: FileAction['label'], icon: LucideIcon): FileAction => ({
  id,
  surfaces: ['toolbar', 'menu'],
  label,
  icon: always(icon),
  writes: true,
  applies: FOLDER_TRANSFER[id] === null ? onlyFiles : hasRows,
  run: (commands, target) => commands[id](target.rows),
});

/**
 * The explorer's file actions, in the order the toolbar and the context menu show them
 * (docs/explorer.md). No rule depends on the caller's role: whoever may list a directory may
 * do all of these to it, and the daemon answers for the rest; only a caller who may not write
 * (a `read` key) is offered no action marked `writes`.
 */
export const FILE_ACTIONS: readonly FileAction[] = [
  {
    id: 'open',
    surfaces: ['menu'],
    label: (t) => t('explorer:fileAction.open'),
    icon: (target) => (single(target)?.kind === 'folder' ? FolderOpen : Eye),
    applies: (target) => single(target) !== null,
    run: (commands, target) => commands.open(target.rows[0]),
  },
  {
    // A search result is listed away from its folder: this is the way to it, with the file selected.
    id: 'openFolder',
    surfaces: ['toolbar', 'menu'],
    label: (t) => t('explorer:fileAction.openFolder'),
    icon: always(FolderSearch),
    applies: (target) => target.search === true && singleFile(target) !== null,
    hiddenUnlessApplies: true,
    run: (commands, target) => commands.openFolder(singleFile(target)!),
  },
  {
    id: 'download',
    surfaces: ['toolbar', 'menu'],
    // One file downloads as itself; anything else as a zip.
    label: (t, target) =>
      hasRows(target) && !singleFile(target) ? t('explorer:fileAction.downloadZip') : t('explorer:fileAction.download'),
    icon: always(Download),
    applies: hasRows,
    run: (commands, target) => commands.download(target),
    link: (commands, target) => commands.downloadLink(target),
  },
  {
    // A text file edited in place and saved as its new content (the old one kept as a version).
    // Over the size limit the label says why it is off; choosing it says so at more length.
    id: 'edit',
    surfaces: ['menu'],
    label: (t, target) => {
      const file = singleFile(target);
      return file && !fitsEditor(file) ? t('editor:actionTooLarge', { limit: formatBytes(EDIT_LIMIT_BYTES) }) : t('editor:action');
    },
    icon: always(FilePenLine),
    writes: true,
    applies: (target) => {
      const file = singleFile(target);
      return file !== null && isTextFile(file.file);
    },
    run: (commands, target) => commands.edit(singleFile(target)!),
  },
  {
    id: 'rename',
    surfaces: ['toolbar', 'menu'],
    label: (t) => t('explorer:fileAction.rename'),
    hint: (t) => t('explorer:fileAction.renameHint'),
    icon: always(Pencil),
    writes: true,
    applies: (target) => single(target) !== null,
    run: (commands, target) => commands.rename(target.rows[0]),
  },
  transfer('move', (t) => t('explorer:fileAction.move'), FolderInput),
  transfer('copy', (t) => t('explorer:fileAction.copy'), Copy),
  {
    // A file's link; on a folder, the folder's link (its tree to browse and download).
    id: 'share',
    surfaces: ['toolbar', 'menu'],
    label: (t, target) => (singleFolder(target) ? t('explorer:fileAction.shareFolder') : t('explorer:fileAction.share')),
    hint: (t, target) => (singleFolder(target) ? t('explorer:fileAction.shareFolderHint') : t('explorer:fileAction.shareHint')),
    icon: always(Link2),
    writes: true,
    applies: (target) => single(target) !== null,
    run: (commands, target) => commands.share(single(target) as FileRowOf | FolderRowOf),
  },
  {
    // A drop box into one folder: anyone with the link uploads into it and sees nothing of it.
    id: 'uploadLink',
    surfaces: ['toolbar', 'menu'],
    label: (t) => t('explorer:fileAction.uploadLink'),
    hint: (t) => t('explorer:fileAction.uploadLinkHint'),
    icon: always(Inbox),
    writes: true,
    applies: (target) => singleFolder(target) !== null,
    hiddenUnlessApplies: true,
    run: (commands, target) => commands.uploadLink(singleFolder(target)!),
  },
  {
    // What uploads replaced of one file: each to download, or to make the content again.
    id: 'versions',
    surfaces: ['toolbar', 'menu'],
    label: (t) => t('versions:action'),
    hint: (t) => t('versions:actionHint'),
    icon: always(History),
    applies: (target) => singleFile(target) !== null,
    hiddenUnlessApplies: true,
    run: (commands, target) => commands.versions(singleFile(target)!),
  },
  {
    id: 'reveal',
    surfaces: ['toolbar'],
    label: (t) => t('explorer:fileAction.reveal'),
    icon: always(FolderOpen),
    applies: (target) => target.inShell && singleFile(target) !== null,
    hiddenUnlessApplies: true,
    run: (commands, target) => commands.reveal(singleFile(target)!),
  },
  {
    id: 'delete',
    surfaces: ['toolbar', 'menu'],
    label: (t) => t('explorer:fileAction.delete'),
    hint: (t) => t('explorer:fileAction.deleteHint'),
    icon: always(Trash2),
    danger: true,
    writes: true,
    applies: hasRows,
    run: (commands, target) => commands.remove(target.rows),
  },
];

/** Whether a caller who may (or may not) write is offered the action at all. */
export const isOffered = (action: FileAction, canWrite: boolean): boolean => canWrite || !action.writes;

/** The actions a surface offers, in their order; without the writing ones for a caller who may only read. */
export const actionsOn = (surface: Surface, canWrite = true): readonly FileAction[] =>
  FILE_ACTIONS.filter((action) => action.surfaces.includes(surface) && isOffered(action, canWrite));
