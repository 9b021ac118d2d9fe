import type { ChangeEvent, IndexState } from '../../shared/types.js';
import { IndexLookups } from './index-lookups.js';
import type { ChangeFeed } from './change-feed.js';
import { addToTotals, completeTree, countTotals, emptyUser, ensureChain, folderChain } from './index-tree.js';
import { diffFiles, diffFolders } from './index-diff.js';
import type { DirId, FileMeta, FolderNode, UserInput, UserNode } from './index-tree.js';
import { graftFolder, relinkFolder } from './index-relink.js';
import { MoveEchoes } from './move-echoes.js';

export { foldName } from './case-folds.js';
export type { FileMeta, FolderNode, UserNode } from './index-tree.js';

/**
 * The in-memory picture of the storage directory: users → folders → folders… → files
 * (docs/tree.md). The disk is the source of truth; the daemon's own operations and the watcher keep this equal to
 * it. A change that alters nothing (the watcher echoing the daemon's own write) announces
 * nothing; every real change is published once into the daemon's change feed. The index's
 * own events are only for what follows the index itself (the watcher's bookkeeping, the
 * wait for the first scan, the thumbnail cache): it is not the daemon's bus.
 */
export class FileIndex extends IndexLookups {
  readonly #changes: ChangeFeed | null;
  state: IndexState = 'scanning';
  /** Whether the index has ever matched the disk (false until the first scan completes). */
  everReady = false;
  /** The folders the daemon moved, for the watcher to know their echo (move-echoes.ts). */
  readonly moveEchoes = new MoveEchoes();
  /**
   * `totals()` as last counted; dropped by every change made through this class (each one
   * emits, or replaces or forgets a user). /api/dash asked for it on every call, and
   * counting 10,000 users' trees each time took ~3 s of the main thread's time while the
   * start-up bench polled it during the first scan (issue 15). Callers never change the
   * maps they are given (`users`, `files()`, `user()`): they read them.
   */
  #totals: ReturnType<typeof countTotals> | null = null;

  /** `changes`: where the index's changes are published (none: an index on its own, as tests build). */
  constructor(changes: ChangeFeed | null = null) {
    super();
    this.#changes = changes;
  }

  /** The user's node, created empty if missing. */
  ensureUser(username: string): UserNode {
    let node = this.users.get(username);
    if (!node) {
      node = emptyUser();
      this.users.set(username, node);
    }
    return node;
  }

  setFile(username: string, folder: string | null, name: string, meta: FileMeta): void {
    const node = this.ensureUser(username);
    const chain = folder === null ? [] : this.#ensureChain(node, username, folder, meta.mtimeMs);
    const files = chain.length > 0 ? chain[chain.length - 1].files : node.root;
    const old = files.get(name);
    if (old && old.size === meta.size && old.mtimeMs === meta.mtimeMs) return;
    if (!old) this.namesChanged(files);
    files.set(name, meta);
    if (!old) this.caseFolds.added(files, name);
    const delta = meta.size - (old?.size ?? 0);
    node.usedBytes += delta;
    addToTotals(chain, delta, old ? 0 : 1, 0, meta.mtimeMs);
    this.#emit(old ? 'file.changed' : 'file.added', username, folder, name);
  }

  removeFile(username: string, folder: string | null, name: string): boolean {
    const node = this.users.get(username);
    const chain = folder === null || !node ? [] : folderChain(node, folder);
    const files = folder === null ? node?.root : chain?.at(-1)?.files;
    const old = files?.get(name);
    if (!node || !files || !old) return false;
    files.delete(name);
    this.namesChanged(files);
    this.caseFolds.removed(files, name);
    node.usedBytes -= old.size;
    addToTotals(chain ?? [], -old.size, -1, 0);
    this.#emit('file.removed', username, folder, name);
    return true;
  }

  /** Adds the folder at `folder` (a path), and any missing above it, each announced; `id` (its `stat`) is kept on its node. */
  addFolder(username: string, folder: string, mtimeMs: number, id?: DirId): void {
    const node = this.#ensureChain(this.ensureUser(username), username, folder, mtimeMs).at(-1)!;
    if (id) Object.assign(node, { dev: id.dev, ino: id.ino });
  }

  /** Takes the folder at `folder` out with its whole subtree: one event, the totals above it updated (O(depth)). */
  removeFolder(username: string, folder: string): boolean {
    const node = this.users.get(username);
    const chain = node && folderChain(node, folder);
    if (!node || !chain) return false;
    const gone = chain.pop()!;
    const parent = chain.length > 0 ? chain[chain.length - 1].folders : node.folders;
    const name = folder.slice(folder.lastIndexOf('/') + 1);
    parent.delete(name);
    this.caseFolds.removed(parent, name);
    node.usedBytes -= gone.sizeBytes;
    addToTotals(chain, -gone.sizeBytes, -gone.fileCount, -(gone.folderCount + 1));
    this.#emit('folder.removed', username, folder, null);
    return true;
  }

  /** Moves the folder at `folder` into `to` (null: the root) as `newName`, its subtree relinked whole: one `folder.moved` event, none per file. */
  relinkFolder(username: string, folder: string, to: string | null, newName: string): void {
    const renamed = relinkFolder(this.users.get(username), folder, to, newName, this.caseFolds);
    if (renamed === null) return;
    this.#emit('folder.moved', username, renamed, null, folder);
  }

  /** Links a copied subtree (its totals complete) as `name` in `to` (null: the root), whole: one `folder.added` event, none per file. */
  graftFolder(username: string, to: string | null, name: string, subtree: FolderNode): void {
    const added = graftFolder(this.users.get(username), to, name, subtree, this.caseFolds);
    if (added !== null) this.#emit('folder.added', username, added, null);
  }

  /** Users whose directory has been read since start: their answers are complete even while others are still scanned. */
  readonly #scanned = new Set<string>();

  /** Whether the index is complete for this user (the first scan has read their directory). */
  isComplete(username: string): boolean {
    return this.state !== 'scanning' || this.#scanned.has(username);
  }

  /** Replaces a user's whole tree (after a scan), emitting what differs. */
  replaceUser(username: string, tree: UserInput): void {
    this.#totals = null;
    const fresh = completeTree(tree);
    const old = this.users.get(username);
    this.users.set(username, fresh);
    if (!this.#scanned.has(username)) {
      this.#scanned.add(username);
      this.emit('userScanned', username);
    }
    if (!old) {
      if (fresh.root.size > 0 || fresh.folders.size > 0) this.#emit('user.changed', username, null, null);
      return;
    }
    diffFiles(old.root, fresh.root, (type, name) => this.#emit(type, username, null, name));
    diffFolders(old.folders, fresh.folders, null, (type, folder, file) => this.#emit(type, username, folder, file));
  }

  removeUser(username: string): void {
    if (this.users.delete(username)) this.#emit('user.removed', username, null, null);
  }

  /** Drops a user's tree without an event (a reconcile found the user gone from the store). */
  forgetUser(username: string): void {
    this.#totals = null;
    this.users.delete(username);
  }

  renameUser(from: string, to: string): void {
    const node = this.users.get(from);
    this.users.delete(from);
    if (node) this.users.set(to, node);
  }

  setState(state: IndexState): void {
    if (this.state === state) return;
    this.state = state;
    if (state === 'ready') this.everReady = true;
    this.#emit('index.state', null, null, null);
  }

  totals(): ReturnType<typeof countTotals> {
    this.#totals ??= countTotals(this.users);
    return { ...this.#totals };
  }

  /** The folders from the root's down to `folder`, each missing one made and announced. */
  #ensureChain(node: UserNode, username: string, folder: string, mtimeMs: number): FolderNode[] {
    return ensureChain(node, folder, mtimeMs, (map, name, path) => {
      this.caseFolds.added(map, name);
      this.#emit('folder.added', username, path, null);
    });
  }

  /** Counts every change of the folders' shape (a folder added, removed or moved), for what keeps a walk of it (search). */
  get folderEpoch(): number {
    return this.#folderEpoch;
  }

  #folderEpoch = 0;

  /** Counts every change that adds or removes a name (a file's or a folder's), for what keeps a directory's sorted names beyond `sortedNames` (search). */
  get namesEpoch(): number {
    return this.#namesEpoch;
  }

  #namesEpoch = 0;

  #emit(type: ChangeEvent['type'], username: string | null, folder: string | null, file: string | null, from?: string): void {
    this.#totals = null;
    if (type === 'folder.added' || type === 'folder.removed' || type === 'folder.moved') this.#folderEpoch++;
    if (type !== 'file.changed' && type !== 'index.state') this.#namesEpoch++;
    const event: ChangeEvent = from === undefined ? { type, username, folder, file } : { type, username, folder, from, file };
    this.emit('change', event);
    this.#changes?.publish(event);
  }
}
