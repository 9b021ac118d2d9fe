/**
 * The trash's side of the storage interface (file-storage.ts): what services/trash.ts asks of
 * the bytes, on disk (trash-dir.ts) or as objects (cluster/object-trash.ts).
 */
import { conflict } from '../errors.js';
import type { FileMeta } from './index-tree.js';

/** Thrown by a trash move or restore that would replace something: the callers turn it into their 409 (trashTaken). */
export class NameTaken extends Error {
  constructor(readonly kind: 'file' | 'folder' | 'other') {
    super('The name is taken');
  }
}

/** The 409 a NameTaken answers. */
export const trashTaken = (taken: NameTaken) =>
  taken.kind === 'folder'
    ? conflict('folder_exists', 'A folder with that name already exists')
    : conflict('file_exists', 'A file with that name already exists');

/** A user's file or folder going into, or coming back from, the trash as item `id`. */
export interface TrashTarget {
  username: string;
  /** The folder the file is in (null: the root); for a folder, the folder itself is `name`. */
  folder: string | null;
  name: string;
  kind: 'file' | 'folder';
  id: string;
}

export interface RestoreTarget extends TrashTarget {
  /** The name to restore under (the item's own, or one with " (restored)"). */
  as: string;
}

/** What a move into the trash took out of the user's files (as the index counted them): for the item's record. */
export interface Trashed {
  size: number;
  fileCount: number;
}

/** What a restore put back: the files' metas (a folder's, by name), as the index now shows them. */
export interface Placed {
  files: Map<string, FileMeta>;
  /** The folder's mtime (a restored folder, or a file's folder made again); null for a file at the root. */
  folderMtimeMs: number | null;
  /** A restored folder's folders at every depth below it (paths relative to it), parents first. */
  below?: { path: string; mtimeMs: number; files: Map<string, FileMeta> }[];
}

/** One item the trash holds, as found at start (to adopt what the store lacks). */
export interface TrashEntry {
  id: string;
  kind: 'file' | 'folder';
  name: string;
  size: number;
  fileCount: number;
  /** When it went into the trash. */
  mtimeMs: number;
}

/**
 * The trash's bytes: what services/trash.ts does with them. Each call keeps the file index in
 * step itself; the store's trash records are the service's, written by the `record` hook,
 * which runs synchronously in the step that makes the move real (disk: as the entry lands,
 * before the original of a copy is removed; objects: just before the rows' one commit, so the
 * records commit with them). Nothing here ever replaces a user's entry: a taken name is NameTaken.
 */
export interface TrashStorage {
  /**
   * Moves a user's file or folder into the trash as item `target.id` and out of the index;
   * answers what went. A folder's uploads in flight are voided (they end in 404), as a
   * delete's. 404 when it is gone.
   */
  moveIn(target: TrashTarget, record: (trashed: Trashed) => void): Promise<Trashed>;
  /**
   * Puts an item back under `target.as` (the service picks the name) and into the index, never
   * replacing anything (NameTaken); a file's folder that no longer exists is made again.
   * Answers what it placed. 404 `trash_item_not_found` when it is gone.
   */
  restore(target: RestoreTarget, record: (placed: Placed) => void): Promise<Placed>;
  /** Deletes one item's bytes for good (nothing there is fine). */
  removeItem(username: string, id: string): Promise<void>;
  /** Deletes a deleted user's whole trash. */
  removeUser(username: string): Promise<void>;
  /** A renamed user's trash follows them (what a crash left under the new name goes first). */
  renameUser(from: string, to: string): Promise<void>;
  /**
   * At start: each user's items as they are, after clearing what a crash left half done;
   * users not in `keep` (deleted while their trash was being removed) lose their trash.
   */
  survey(keep: (username: string) => boolean): Promise<Map<string, TrashEntry[]>>;
}
