/**
 * The shares by the path of their file (derived from the shares by token, never persisted),
 * and how many files of each folder are shared: a listing of 10,000 files at depth 10 built
 * the long key of each file to find it had no share link (the tree bench's listing at depth
 * was 1.43× one level deep, with 1.23× the bytes); with no share in the folder it looks none up.
 */
import type { StoredShare } from './schema.js';

/** Key of a file's share in `sharesByPath`. */
export const sharePathKey = (username: string, folder: string | null, file: string): string =>
  `${username}\u0000${folder ?? ''}\u0000${file}`;

/** Key of a folder's link of one kind in `sharesByPath` (no file name is empty, so none collides). */
export const folderLinkKey = (username: string, folder: string, kind: 'folder' | 'upload'): string =>
  `${username}\u0000${folder}\u0000\u0000${kind}`;

/** A share's key in `sharesByPath`, whatever its kind. */
export const shareKey = (share: StoredShare): string =>
  share.kind ? folderLinkKey(share.username, share.folder ?? '', share.kind) : sharePathKey(share.username, share.folder, share.file);

const folderKey = (username: string, folder: string | null): string => `${username}\u0000${folder ?? ''}`;

export class SharePaths extends Map<string, StoredShare> {
  /** Shared files per folder, by folderKey; a folder with none is absent. */
  readonly #perFolder = new Map<string, number>();

  override set(key: string, share: StoredShare): this {
    // (Never constructed with entries: Map's constructor would call set() before #perFolder exists.)
    const previous = super.get(key);
    if (previous) this.#count(previous, -1);
    this.#count(share, 1);
    return super.set(key, share);
  }

  override delete(key: string): boolean {
    const previous = super.get(key);
    if (!previous) return false;
    this.#count(previous, -1);
    return super.delete(key);
  }

  override clear(): void {
    this.#perFolder.clear();
    super.clear();
  }

  /** Whether any file directly in this folder (null: the root) has a share link. */
  anyIn(username: string, folder: string | null): boolean {
    return this.#perFolder.has(folderKey(username, folder));
  }

  #count(share: StoredShare, by: 1 | -1): void {
    // A folder's own link shares no file of it: a listing there looks up no file's link.
    if (share.kind) return;
    const key = folderKey(share.username, share.folder);
    const n = (this.#perFolder.get(key) ?? 0) + by;
    if (n > 0) this.#perFolder.set(key, n);
    else this.#perFolder.delete(key);
  }
}
