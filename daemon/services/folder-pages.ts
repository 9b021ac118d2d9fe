/**
 * The last pages of folder listings asked for, kept as their bytes while nothing they were
 * made of has changed: a client paging or polling a folder of 100,000 files is answered
 * with one copy instead of 100 look-ups, checks and copies an entry (issue 30's page row).
 *
 * Never stale: a page is served again only when
 * - the folder's files are a VersionedMap at the version the page was made at (every added,
 *   replaced or removed file moves it, and a FileMeta is replaced, never changed: records.ts);
 * - it is asked for at the same folder path (a renamed or moved folder keeps its Map, while
 *   its entries name the path) with the same offset and limit;
 * - no file of the folder has a share link, then or now: a link, its token and the daemon's
 *   address are in an entry without being in the Map. A folder with one is never kept.
 */
import type { FileEntry } from '../../shared/types.js';
import type { FileMeta } from '../storage/index-tree.js';
import type { JsonBytes } from '../util/json-bytes.js';
import { VersionedMap } from '../util/versioned-map.js';

/** Pages kept at most, one a folder (the last one asked for), the oldest folder dropped first; only pages up to 64 KiB (~400 entries), so at most 4 MiB. */
const MAX_PAGES = 64;
const MAX_PAGE_BYTES = 64 * 1024;

export interface FolderPage {
  total: number;
  json: JsonBytes<{ files: FileEntry[] }>;
}

interface KeptPage extends FolderPage {
  version: number;
  folder: string | null;
  offset: number;
  limit: number;
}

/** By the files they were made of, held weakly: a deleted folder's page goes with its Map. */
const kept = new WeakMap<Map<string, FileMeta>, KeptPage>();
/** The folders with a kept page, oldest first, for the bound. */
const keptOrder: WeakRef<Map<string, FileMeta>>[] = [];

/** The page made earlier of these files, if it is still what they hold. */
export function keptPage(files: Map<string, FileMeta>, folder: string | null, offset: number, limit: number): FolderPage | undefined {
  const page = kept.get(files);
  if (!page || !(files instanceof VersionedMap)) return undefined;
  if (page.version !== files.version || page.folder !== folder || page.offset !== offset || page.limit !== limit) return undefined;
  return page;
}

/** Keeps a page just made (of a folder without share links) for the next time, when its files count their changes. */
export function keepPage(files: Map<string, FileMeta>, folder: string | null, offset: number, limit: number, page: FolderPage): void {
  if (!(files instanceof VersionedMap) || page.json.bytes.length > MAX_PAGE_BYTES) return;
  if (!kept.has(files)) {
    keptOrder.push(new WeakRef(files));
    const oldest = keptOrder.length > MAX_PAGES ? keptOrder.shift()!.deref() : undefined;
    if (oldest) kept.delete(oldest);
  }
  kept.set(files, { ...page, version: files.version, folder, offset, limit });
}
