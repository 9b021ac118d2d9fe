/**
 * The indexes the Store derives from its persisted records and never persists: shares by the
 * path of their file (share-paths.ts), each user's trash items and their bytes (usage reads
 * them on every upload), and WebDAV's locks and properties by user (dav-records.ts). Rebuilt
 * after every load, and kept in step with each record another daemon writes.
 */
import type { CollectionName } from './collections.js';
import type { DavRecords } from './dav-records.js';
import type { StoredShare, StoredTrashItem } from './schema.js';
import { shareKey, type SharePaths } from './share-paths.js';

/** Each user's trash items by id, and their bytes. */
export class TrashByUser {
  readonly #users = new Map<string, { items: Map<string, StoredTrashItem>; bytes: number }>();

  add(item: StoredTrashItem): void {
    let mine = this.#users.get(item.username);
    if (!mine) this.#users.set(item.username, (mine = { items: new Map(), bytes: 0 }));
    mine.items.set(item.id, item);
    mine.bytes += item.size;
  }

  remove(item: StoredTrashItem): void {
    const mine = this.#users.get(item.username);
    if (!mine || !mine.items.delete(item.id)) return;
    mine.bytes -= item.size;
    if (mine.items.size === 0) this.#users.delete(item.username);
  }

  /** A user's trash items, in no particular order. */
  itemsOf(username: string): StoredTrashItem[] {
    return [...(this.#users.get(username)?.items.values() ?? [])];
  }

  bytesOf(username: string): number {
    return this.#users.get(username)?.bytes ?? 0;
  }

  rebuild(items: Iterable<StoredTrashItem>): void {
    this.#users.clear();
    for (const item of items) this.add(item);
  }
}

export interface DerivedIndexes {
  sharesByPath: SharePaths;
  trashByUser: TrashByUser;
  dav: DavRecords;
}

/** After the Maps were loaded anew (a start, a resync, a failed write put back). */
export function rebuildDerived(d: DerivedIndexes, shares: Iterable<StoredShare>, trash: Iterable<StoredTrashItem>): void {
  d.sharesByPath.clear();
  for (const s of shares) d.sharesByPath.set(shareKey(s), s);
  d.trashByUser.rebuild(trash);
  d.dav.rebuild();
}

/** One record of `collection` replaced by another daemon's (`before` → `after`; either absent). */
export function applyToDerived(d: DerivedIndexes, collection: CollectionName, before: unknown, after: unknown): void {
  if (collection === 'shares') {
    const [was, now] = [before as StoredShare | undefined, after as StoredShare | undefined];
    const wasPath = was && shareKey(was);
    // Only the share it indexes: another share may have taken that path meanwhile.
    if (wasPath && d.sharesByPath.get(wasPath) === was) d.sharesByPath.delete(wasPath);
    if (now) d.sharesByPath.set(shareKey(now), now);
  } else if (collection === 'trash') {
    if (before) d.trashByUser.remove(before as StoredTrashItem);
    if (after) d.trashByUser.add(after as StoredTrashItem);
  } else if (collection === 'davLocks' || collection === 'davProps') {
    d.dav.applied(collection, before, after);
  }
}
