/**
 * The store's records of what users keep (db.json's `shares`, `trash`, `versions`, and in object
 * mode `files` and `folders`): never the file list itself, which is the disk's. schema.ts gathers
 * them into the whole store.
 */

export interface StoredShare {
  token: string;
  /** Absent: a link to one file. `folder`: the folder's whole tree, read-only; `upload`: a file drop into the folder (docs/sharing.md). */
  kind?: 'folder' | 'upload';
  username: string;
  /** The file's folder (null: the root); for a folder or upload link, the folder itself. */
  folder: string | null;
  /** The file's name; '' for a folder or upload link. */
  file: string;
  createdAt: string;
  /** When the link stops working (ISO); absent: never (docs/sharing.md). */
  expiresAt?: string;
  /** Hash of the password the link asks for, as a user's `passwordHash` (keys/password-hash.ts); absent: none. */
  passwordHash?: string;
  /** Downloads the link allows in all; absent: no limit. */
  maxDownloads?: number;
  /** Downloads so far, with db.json; on PostgreSQL the `share_downloads` table counts them (services/share-uses.ts). */
  downloads?: number;
}

/**
 * Something a user deleted, kept in `<data-dir>/trash/<username>/<id>/<name>` until restored,
 * deleted for good or purged (docs/explorer.md, "Trash").
 */
export interface StoredTrashItem {
  /** 16 random bytes, hex: the entry's directory in the user's trash. */
  id: string;
  username: string;
  kind: 'file' | 'folder';
  name: string;
  /** Where a file was (null: the root); null for a folder. */
  folder: string | null;
  /** Bytes (a folder: all its files). */
  size: number;
  /** 1 for a file; a folder's number of files. */
  fileCount: number;
  deletedAt: string;
}

/**
 * A file in object mode (docs/cluster.md): its bytes are the object `files/<id>` in the
 * bucket. The id never changes, so renaming the file, its folder or its user changes rows only.
 */
export interface StoredFile {
  /** 32 random hex digits. */
  id: string;
  username: string;
  /** The folder's id (null: the user's root). */
  folderId: string | null;
  name: string;
  size: number;
  mtimeMs: number;
  contentType: string;
  /** The object's ETag as the object store gave it. */
  etag: string;
  /** Set while the file is in the trash: the trash item holding it. */
  trashId: string | null;
}

/** A folder in object mode (docs/cluster.md). */
export interface StoredFolder {
  /** 32 random hex digits. */
  id: string;
  username: string;
  name: string;
  mtimeMs: number;
  /** Set while the folder is in the trash. */
  trashId: string | null;
  /**
   * The id of the folder it is in; null at the user's root. Absent in rows written before
   * folders nested (issue 25): read as null, which is where those were.
   */
  parentId?: string | null;
}

/**
 * A file's earlier content, kept when an upload replaced it (docs/versions.md): on disk its bytes
 * are `<data dir>/versions/<username>/<id>`, a hard link to the replaced inode; in object mode the
 * replaced object itself. Nothing is copied either way.
 */
export interface StoredVersion {
  /** 16 random bytes, hex: the file's name under the user's versions directory. */
  id: string;
  username: string;
  /** The file it is a version of, where that file is now (versions follow renames and moves). */
  folder: string | null;
  file: string;
  size: number;
  /** When the kept content was last modified (its mtime). */
  mtimeMs: number;
  /** When it was replaced, so kept (ISO). */
  keptAt: string;
  /** Object mode: the replaced file's object, kept as it was (nothing copied), and its ETag; absent on disk. */
  objectId?: string;
  etag?: string;
}
