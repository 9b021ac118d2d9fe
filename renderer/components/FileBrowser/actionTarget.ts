/**
 * What a file action acts on (fileActions.ts), and the questions its rules ask of it: one row
 * or many, files or folders.
 */
import type { Row } from '../../lib/rows';

/** The rows an action would act on (the selection, or the row a menu was opened for), and where the UI runs. */
export interface ActionTarget {
  rows: readonly Row[];
  /** The rows are the whole listing (a download at the root is then the whole storage's zip). */
  everything: boolean;
  /** Inside Electron: the shell can show a file in the OS file manager. */
  inShell: boolean;
  /** The rows are search results, each in its own folder (which "Open containing folder" opens). */
  search?: boolean;
}

/** A file among the target's rows. */
export type FileRowOf = Extract<Row, { kind: 'file' }>;
/** A folder among the target's rows. */
export type FolderRowOf = Extract<Row, { kind: 'folder' }>;

/** The target's one row, or null when it has none or several. */
export const single = ({ rows }: ActionTarget): Row | null => (rows.length === 1 ? rows[0] : null);

/** The target's one row when it is a file, else null. */
export const singleFile = (target: ActionTarget): FileRowOf | null => {
  const row = single(target);
  return row?.kind === 'file' ? row : null;
};

/** The target's one row when it is a folder, else null. */
export const singleFolder = (target: ActionTarget): FolderRowOf | null => {
  const row = single(target);
  return row?.kind === 'folder' ? row : null;
};

/** Whether the target has any row at all. */
export const hasRows = ({ rows }: ActionTarget) => rows.length > 0;

/** Whether the target has rows and every one is a file. */
export const onlyFiles = ({ rows }: ActionTarget) => rows.length > 0 && rows.every((row) => row.kind === 'file');
