/**
 * A directory another program renames or moves inside a user's directory is one rename on
 * disk, but @parcel/watcher reports it as a `delete` of the old path and a `create` of the new
 * one, with no inotify cookie to pair them (docs/tree.md, "The disk walk at depth"). The pair
 * is found here by the directory's identity: a folder seen gone whose node holds the same
 * device and inode (learned at scan and listing time) as a directory that appeared under the
 * same user is the same directory, moved. The index node is relinked whole (O(depth), nothing
 * below walked) and one `folder.moved` announced, as the API's folders.move does.
 */
import type { Stats } from 'node:fs';
import path from 'node:path';
import type { Storage } from '../storage.js';
import { eachFolder, joinFolder, type FolderNode } from '../index-tree.js';
import { syncIndexDirectory } from '../index-sync.js';
import { isAddressableName, isFolderPathInLimits } from '../scan.js';
import type { IndexTarget, Removal } from './apply-changes.js';
import type { Location } from './subscription.js';

/**
 * How long the removal of a folder seen gone waits for a directory with its identity to
 * appear. @parcel/watcher hands a batch over at the latest 500 ms after its first event, and
 * a rename's two names were handed over in two batches once in 200 renames made under a load
 * of 2,500 file writes a second (never when idle); both then settle 50 ms after arriving.
 */
export const PAIR_WINDOW_MS = 600;

/** A folder seen gone: its path then, and its node (still in the index there unless removed or moved since). */
interface Gone {
  folder: string;
  node: FolderNode;
}

/** A folder the watcher relinked: `from` its old path, `to` its new one. */
export interface DirMove {
  username: string;
  from: string;
  to: string;
}

/** Told of a folder another program moved, once the index has relinked it (its shares follow it). */
export type FolderMoved = (move: DirMove) => void;

/** The folders the watcher saw gone in the last PAIR_WINDOW_MS (by user and directory identity), paired with the directories that appear, and the moves paired. */
export class DirMoves {
  readonly #byId = new Map<string, Gone>();
  readonly #waits = new Set<NodeJS.Timeout>();
  /** The moves relinked, for the paths the watch still reports under their old names. */
  readonly #movedAway: MovedAway;

  constructor(root: string, index: IndexTarget['index']) {
    this.#movedAway = new MovedAway(root, index);
  }

  /** Where a path the watch reported is now (below a folder moved since: at its new path). */
  current(p: string): string {
    return this.#movedAway.current(p);
  }

  /**
   * Notes a folder seen gone, if its identity is known, and hands its removal on to `apply`
   * once PAIR_WINDOW_MS have passed (at once for anything else): if the folder was moved,
   * the directory that appeared has been relinked by then and the removal finds nothing.
   */
  seen(t: IndexTarget, removal: Removal | null, apply: () => void): void {
    const node = removal?.folder && removal.file === null ? t.index.folder(removal.username, removal.folder) : undefined;
    if (!removal?.folder || !node?.ino) return apply();
    const key = idKey(removal.username, node.dev, node.ino);
    const gone = { folder: removal.folder, node };
    this.#byId.set(key, gone);
    this.later(() => {
      if (this.#byId.get(key) === gone) this.#byId.delete(key);
      apply();
    });
  }

  /** Runs `fn` once PAIR_WINDOW_MS have passed (unless cleared first): a removal below a folder that may have moved waits as long. */
  later(fn: () => void): void {
    const wait = setTimeout(() => {
      this.#waits.delete(wait);
      fn();
    }, PAIR_WINDOW_MS);
    this.#waits.add(wait);
  }

  /**
   * Relinks the folder a directory that appeared (`at`, `stat`) was, if it is one seen gone
   * under the same user and still in the index at its old path as the same node; null
   * otherwise (the caller indexes it as a new directory). A directory from another user's
   * tree, from outside the storage folder or past the tree's limits is never paired.
   */
  relinkIfMoved(t: IndexTarget, at: Location, stat: Stats): DirMove | null {
    const { username, folder, name } = at;
    if (username === null || !stat.ino || !t.store.users.has(username) || !isAddressableName(name)) return null;
    const key = idKey(username, stat.dev, stat.ino);
    const gone = this.#byId.get(key);
    const to = joinFolder(folder, name);
    if (!gone || !isFolderPathInLimits(to) || t.index.folder(username, to)) return null;
    this.#byId.delete(key);
    if (t.index.folder(username, gone.folder) !== gone.node) return null;
    t.index.relinkFolder(username, gone.folder, folder, name);
    if (t.index.folder(username, to) !== gone.node) return null;
    const move = { username, from: gone.folder, to };
    this.#movedAway.add(move);
    return move;
  }

  /** Forgets every folder seen gone and every move, and drops the removals still waiting (the watch stopped). */
  clear(): void {
    this.#byId.clear();
    this.#movedAway.clear();
    for (const wait of this.#waits) clearTimeout(wait);
    this.#waits.clear();
  }
}

const idKey = (username: string, dev: number, ino: number) => `${username}/${dev}:${ino}`;

/**
 * Reads a moved folder's subtree again, each directory once, parents first: what changed in
 * it while it moved (a file written just before, seen under its old path) is applied, each
 * change announced; what did not change announces nothing. `current()` false stops it.
 */
export async function resyncMoved(t: IndexTarget & { storage: Storage }, move: DirMove, current: () => boolean): Promise<void> {
  const node = t.index.folder(move.username, move.to);
  if (!node) return;
  const folders = [move.to];
  eachFolder(node.folders, move.to, (folder) => folders.push(folder));
  const isUser = (name: string) => t.store.users.has(name);
  for (const folder of folders) {
    if (!current() || !t.index.folder(move.username, folder)) continue;
    await syncIndexDirectory(t.storage, move.username, folder, isUser);
  }
}

/** How many moves are remembered for the paths @parcel/watcher still reports under their old names (the oldest forgotten first). */
const MOVES_KEPT = 1000;

/**
 * @parcel/watcher renames nothing in its own tree when a directory moves: the folders below
 * it stay watched under their old paths, so a file written later into one is reported at the
 * old path (docs/tree.md). Each relinked move is kept here, and a path reported below a
 * moved folder's old path is read at its new one, while the index has no folder at the old
 * path again. A path read wrongly (a new directory made at the old path, not yet indexed)
 * costs only an lstat: the settler applies whatever the disk holds at the path it reads.
 */
export class MovedAway {
  /** Old absolute path → the move, in the order seen. */
  readonly #moves = new Map<string, DirMove & { toPath: string }>();
  readonly #root: string;
  readonly #index: IndexTarget['index'];

  constructor(root: string, index: IndexTarget['index']) {
    this.#root = root;
    this.#index = index;
  }

  add(move: DirMove): void {
    const fromPath = path.join(this.#root, move.username, ...move.from.split('/'));
    this.#moves.delete(fromPath);
    this.#moves.set(fromPath, { ...move, toPath: path.join(this.#root, move.username, ...move.to.split('/')) });
    if (this.#moves.size > MOVES_KEPT) this.#moves.delete(this.#moves.keys().next().value!);
  }

  /** Where a reported path is now: followed through every move below whose old path it lies (a folder moved twice, twice). */
  current(p: string): string {
    for (let hops = 0; hops < 8 && this.#moves.size > 0; hops++) {
      const moved = this.#below(p);
      if (!moved) break;
      p = moved.toPath + p.slice(moved.fromPath.length);
    }
    return p;
  }

  clear(): void {
    this.#moves.clear();
  }

  #below(p: string): { fromPath: string; toPath: string } | undefined {
    // The nearest ancestor first: each ancestor of the path looked up once.
    for (let end = p.lastIndexOf(path.sep); end > this.#root.length; end = p.lastIndexOf(path.sep, end - 1)) {
      const fromPath = p.slice(0, end);
      const move = this.#moves.get(fromPath);
      if (move && !this.#index.folder(move.username, move.from)) return { fromPath, toPath: move.toPath };
    }
    return undefined;
  }
}
