/**
 * What object mode's modules (object-tree.ts, object-uploads.ts, object-trash.ts and
 * ObjectStorage itself) share: the store, the index and the rows that keep it, the bucket,
 * the locks and the upload tickets, and the few steps every one of them takes. The modules
 * import this, not ObjectStorage, so none of them imports another in a circle.
 */
import { ApiError, CommitConflict, notFound } from '../../errors.js';
import type { Store } from '../../store/store.js';
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import type { FileIndex } from '../file-index.js';
import type { FileMeta } from '../index-tree.js';
import type { ObjectStore } from '../objects/object-store.js';
import { WatchedObjectStore } from '../objects/watched-store.js';
import { assertComponent, assertFolderPath } from '../paths.js';
import { SharedExclusiveLock } from '../safe-lock.js';
import { UploadTickets } from '../upload-tickets.js';
import { objectKey } from './ids.js';
import { IndexedRows } from './rows.js';

export interface ObjectStorageOptions {
  store: Store;
  index: FileIndex;
  objects: ObjectStore;
  /** A warning line for the log (an object left behind for the sweeper). */
  log: (line: string) => void;
}

/** The 404 of a user (null) or folder that is not there. */
export const missingIn = (folder: string | null) =>
  folder === null ? notFound('user_not_found', 'User not found') : notFound('folder_not_found', 'Folder not found');

export class ObjectParts {
  /** Held shared for work inside a user or folder, exclusively to delete or rename it. */
  readonly live = new SharedExclusiveLock();
  readonly tickets = new UploadTickets();
  readonly store: Store;
  readonly index: FileIndex;
  /** The bucket, and whether its last answer was a failure (uploads ask before reserving quota). */
  readonly objects: WatchedObjectStore;
  readonly rows: IndexedRows;
  readonly #log: (line: string) => void;

  constructor(options: ObjectStorageOptions) {
    this.store = options.store;
    this.index = options.index;
    this.objects = options.objects instanceof WatchedObjectStore ? options.objects : new WatchedObjectStore(options.objects);
    this.#log = options.log;
    this.rows = new IndexedRows(this.index);
  }

  requireFolder(username: string, folder: string | null): void {
    if (folder !== null && !this.index.folder(username, folder)) throw notFound('folder_not_found', 'Folder not found');
  }

  requireFile(username: string, folder: string | null, file: string): FileMeta {
    this.requireFolder(username, folder);
    const meta = this.index.getFile(username, folder, file);
    if (!meta) throw notFound('file_not_found', 'File not found');
    return meta;
  }

  /** 400 for a name that is not one path component (before any row is looked up). */
  checkNames(username: string, folder: string | null, file: string): void {
    assertComponent(username);
    if (folder !== null) assertFolderPath(folder);
    assertComponent(file);
  }

  /**
   * Runs `change` (a change of rows decided under the locks, then committed), and once more
   * when its commit was refused as a conflict, after catching up with the other daemons. The
   * likeliest cause is a row this daemon had not heard of yet: the cluster soak saw a client's
   * rename through one daemon answer 409 just after its overwrite through another had replaced
   * the file's row. Run again, the change is decided on the rows as they are (the rename
   * renames the new file; a rename onto a name taken meanwhile answers `file_exists`). A
   * conflict again, or a daemon alone (no catch-up), answers the 409.
   */
  async changeRows<T>(change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } catch (err) {
      if (!(err instanceof CommitConflict && (await this.store.catchUp(true)))) throw err;
      return change();
    }
  }

  /** Changes one file row, commits (with what `beforeCommit` changes in the store), then shows it in the index. */
  async putFile(row: StoredFile, beforeCommit: () => void = () => undefined): Promise<void> {
    this.store.files.set(row.id, row);
    beforeCommit();
    await this.store.commit();
    this.rows.applyFile(row.id, row);
  }

  /**
   * Deletes rows in one commit, then their files' objects (a failure there leaves orphans for
   * the sweeper). The folders are applied first, parents first: a subtree leaves the index
   * as one folder.removed, not one event per file. `asKnown`: the commit is refused (409) if
   * any of the rows is gone from the database or changed (TrackedMap.deleteExisting): another
   * daemon's overwrite has made that file's object a version's, a rename the row another
   * name's, a restore the trashed row a file again (changeRows then decides again on the rows
   * as they are). Without it, a row gone is taken as deleted (a deleted user's trashed rows).
   */
  async deleteRows(files: StoredFile[], folders: StoredFolder[], asKnown = false): Promise<void> {
    for (const f of files) this.store.files[asKnown ? 'deleteExisting' : 'delete'](f.id);
    for (const f of folders) this.store.folders[asKnown ? 'deleteExisting' : 'delete'](f.id);
    await this.store.commit();
    for (const f of folders) this.rows.applyFolder(f.id, undefined);
    for (const f of files) this.rows.applyFile(f.id, undefined);
    await this.deleteObjects(files.map((f) => f.id));
  }

  /** Deletes objects no row names any more; a failure is logged, not thrown (the sweeper gets them later). */
  async deleteObjects(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.objects.delete(ids.map(objectKey));
    } catch (err) {
      this.#log(`Nimbus: ${ids.length} object(s) could not be deleted (the sweeper will): ${(err as Error).message}`);
    }
  }
}

/**
 * Whether a commit that threw may have been written all the same: its connection was lost (a
 * 503 `database_unavailable`), perhaps after PostgreSQL committed and before its answer came
 * back, and the store's resync then brings the rows back. The objects those rows would name
 * must stay: the sweeper deletes them in an hour if no row names them. Any other failure (a
 * conflict, a refused statement, a JSON store's failed write) wrote nothing.
 */
export function mayHaveCommitted(err: unknown): boolean {
  return err instanceof ApiError && err.code === 'database_unavailable';
}
