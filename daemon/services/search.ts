/** files.search: a user's files whose name holds a text, ignoring case and accents, in the whole tree or below one folder. */
import type { SearchHit } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { joinFolder, type FileMeta, type FolderNode } from '../storage/index-tree.js';
import { fileEntryBytes, requireUser } from './records.js';
import { type JsonBytes, jsonListBytes } from '../util/json-bytes.js';

/**
 * The form names are compared in: compatibility decomposition, marks dropped, lower case,
 * so `Résumé.pdf` holds `resume` and `ÉTÉ` finds `été.txt`. Unlike `foldName` (names a disk
 * takes for one) this is only for finding; it never decides whether two names clash.
 */
export function searchFold(text: string): string {
  return ASCII.test(text) ? text.toLowerCase() : text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * The folded names of one directory's file map, joined by NUL (which no file name holds) into
 * one string, so a search over 100,000 files is one `indexOf` scan per directory of
 * precomputed text. Kept per map while the index's sorted names of that map are the same
 * array: the index drops those whenever a name is added or removed (`FileIndex.sortedNames`),
 * and a scan replaces the maps themselves, so renames, deletes and the watcher's changes are
 * seen on the next search. A file whose size or date changed keeps its name; its meta is read
 * from the map at answer time.
 */
interface FoldedDir {
  names: string[];
  /** `\0` + each folded name + `\0`… in the order of `names`. */
  text: string;
  /** Where each name's folded text starts in `text`. */
  starts: Int32Array;
}

const foldedDirs = new WeakMap<Map<string, FileMeta>, FoldedDir>();

function foldedDir(nimbus: NimbusContext, files: Map<string, FileMeta>): FoldedDir {
  const names = nimbus.index.sortedNames(files);
  let dir = foldedDirs.get(files);
  if (dir?.names !== names) {
    const starts = new Int32Array(names.length);
    let text = '\0';
    for (let i = 0; i < names.length; i++) {
      starts[i] = text.length;
      text += `${searchFold(names[i])}\0`;
    }
    dir = { names, text, starts };
    foldedDirs.set(files, dir);
  }
  return dir;
}

/** The index of the name whose folded text holds position `pos` (the last start ≤ pos). */
function nameAt(starts: Int32Array, pos: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A folder below a search's start, with its parent's path and its name (its own path is made only for a hit). */
interface FolderBelow {
  files: Map<string, FileMeta>;
  parent: string | null;
  name: string;
  /** Its folded names, as last read: current while the index's `namesEpoch` is the walk's. */
  dir: FoldedDir | null;
  /** Its path, once a search had a hit in it. */
  path: string | null;
}

interface Walk {
  epoch: number;
  from: string | null;
  folders: FolderBelow[];
  /** The index's `namesEpoch` when every folder's `dir` was last made current. */
  namesEpoch: number;
}

const walks = new WeakMap<object, Walk>();

/**
 * Every folder below `start` (depth first), kept until the index's folders change shape (an
 * add, a removal, a move: `folderEpoch`): a search then loops over one array instead of
 * recursing through a Map per folder. The folders' files are read live; their folded names
 * are kept in the walk too, and looked up again only after a name came or went anywhere in
 * the index (`namesEpoch`). The lookups were two WeakMap gets per folder: at 100,000 folders
 * nested 12 deep, each touching a Map scattered in memory, the walk took 20 ms a search
 * against 8 ms for the same folders one level deep (bench/NOTES.md, issue 25).
 */
function foldersBelow(nimbus: NimbusContext, start: { folders: Map<string, FolderNode> }, from: string | null): Walk {
  const epoch = nimbus.index.folderEpoch;
  const kept = walks.get(start);
  if (kept?.epoch === epoch && kept.from === from) return kept;
  const folders: FolderBelow[] = [];
  const walk = (map: Map<string, FolderNode>, parent: string | null) => {
    for (const [name, folder] of map) {
      folders.push({ files: folder.files, parent, name, dir: null, path: null });
      if (folder.folders.size > 0) walk(folder.folders, joinFolder(parent, name));
    }
  };
  walk(start.folders, from);
  const made = { epoch, from, folders, namesEpoch: -1 };
  walks.set(start, made);
  return made;
}

/** Pages ending past this many hits sort every hit instead of keeping the first ones. */
const TOP_K_MAX = 1000;

interface Hit {
  name: string;
  folder: string | null;
  /** The directory's map: the meta is looked up only for the hits a page shows. */
  files: Map<string, FileMeta>;
  folded: string;
}

function compareHits(a: Hit, b: Hit): number {
  if (a.folded !== b.folded) return a.folded < b.folded ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  // The root (null) before any folder, then folders by name.
  if (a.folder === b.folder) return 0;
  if (a.folder === null) return -1;
  if (b.folder === null) return 1;
  return a.folder < b.folder ? -1 : 1;
}

/**
 * One page of the user's files, at the root and in every folder at every depth (or, with
 * `within`, in that folder and every folder below it; 404 when it does not exist), whose
 * folded name holds the folded `q` (a literal substring, no patterns), ordered by folded
 * name, then name, then folder path (root first); as the UTF-8 JSON of `{files: SearchHit[]}`.
 */
export function searchFilesJson(
  nimbus: NimbusContext,
  username: string,
  q: string,
  offset = 0,
  limit = Infinity,
  within: string | null = null,
): { total: number; json: JsonBytes<{ files: SearchHit[] }> } {
  requireUser(nimbus, username);
  nimbus.storage.requireFolder(username, within);
  const node = nimbus.index.user(username);
  const needle = searchFold(q);
  // The page needs only the first `offset + limit` hits in order: a small page keeps just those
  // (sorted, by binary insertion, after one string comparison with the last kept for most
  // hits), so thousands of hits are not all sorted; no limit or a deep page sorts them all.
  const keep = offset + limit;
  const bounded = keep <= TOP_K_MAX;
  let hits: Hit[] = [];
  let total = 0;
  const add = (name: string, folder: string | null, files: Map<string, FileMeta>, folded: string) => {
    total++;
    if (!bounded) {
      hits.push({ name, folder, files, folded });
      return;
    }
    if (hits.length >= keep && folded > hits[hits.length - 1].folded) return;
    const hit = { name, folder, files, folded };
    let lo = 0;
    let hi = hits.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareHits(hits[mid], hit) <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= keep) return;
    hits.splice(lo, 0, hit);
    if (hits.length > keep) hits.pop();
  };
  // No file name holds NUL; a needle with one would otherwise match across two names.
  if (node && needle.length > 0 && !needle.includes('\0')) {
    // One directory's files. Its folder path is made at its first hit only (and kept in the walk
    // for a folder below the start), not for each of a tree's 100,000 folders.
    const scan = (dir: FoldedDir, files: Map<string, FileMeta>, below: FolderBelow | null) => {
      const { names, text, starts } = dir;
      let pos = text.indexOf(needle, 1);
      if (pos === -1) return;
      const folder = below === null ? within : (below.path ??= joinFolder(below.parent, below.name));
      while (pos !== -1) {
        const i = nameAt(starts, pos);
        const end = i + 1 < starts.length ? starts[i + 1] - 1 : text.length - 1;
        // `names` is the map's own sorted key list (dropped whenever a name comes or goes): every one is in it.
        add(names[i], folder, files, text.slice(starts[i], end));
        if (i + 1 >= starts.length) break;
        pos = text.indexOf(needle, starts[i + 1]);
      }
    };
    // From the root, or from `within` (whose path starts every path below it, so hits carry their whole folder path either way).
    const start = within === null ? node : nimbus.index.folder(username, within);
    if (start) {
      const files = 'root' in start ? start.root : start.files;
      scan(foldedDir(nimbus, files), files, null);
      const walk = foldersBelow(nimbus, start, within);
      const namesKept = walk.namesEpoch === nimbus.index.namesEpoch;
      for (const below of walk.folders) {
        if (!namesKept || below.dir === null) below.dir = foldedDir(nimbus, below.files);
        scan(below.dir, below.files, below);
      }
      walk.namesEpoch = nimbus.index.namesEpoch;
    }
  }
  if (!bounded) hits.sort(compareHits);
  else hits = hits.slice(0, keep);
  const end = Math.min(hits.length, offset + limit);
  const entries: Buffer[] = [];
  for (let i = offset; i < end; i++) {
    const hit = hits[i];
    const meta = hit.files.get(hit.name);
    if (meta) entries.push(fileEntryBytes(nimbus, username, hit.folder, hit.name, meta));
  }
  // Each entry is the JSON of a FileEntry, which carries its folder: {files: SearchHit[]}.
  return { total, json: jsonListBytes('files', entries) };
}
