import { readFileSync, watch, type Stats, type WatchListener } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { NimbusContext } from '../context.js';
import { checkStorage } from './availability.js';
import { markUnavailable, reconcileAll } from './reconcile.js';
import { lstatBelow } from './safe-dir.js';
import { trackTouches, type Touches } from './safe-touched.js';
import { isAddressableName } from './scan.js';
import { syncIndexDirectory } from './sync.js';

/** What the watcher needs of a directory watch: `fs.watch`'s FSWatcher, or a test's stand-in. */
export interface DirWatcher {
  close(): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeAllListeners(): unknown;
}
/**
 * Watches one directory, not its subdirectories (`fs.watch`: one inotify watch on Linux),
 * calling `listener` with the name of each entry that changed; tests pass their own to
 * make the watch fail.
 */
export type WatchFactory = (dir: string, listener: WatchListener<string>) => DirWatcher;

const watchDir: WatchFactory = (dir, listener) => watch(dir, { persistent: false }, listener);

/** A changed file is indexed once its size has been still this long (as chokidar's awaitWriteFinish would, near 200 ms). */
const WRITE_FINISH_MS = 200;
/** How often names that changed are looked at again (lstat) until they are settled. */
const SETTLE_POLL_MS = 50;
/** Directories watched between two turns of the event loop, so the API answers while the watches start. */
const START_BATCH = 500;
/** While the watches start, directories are polled so a file copied in still shows at once. */
const BRIDGE_POLL_MS = 200;
const FALLBACK_POLL_MS = 2000;
const FALLBACK_RECONCILE_MS = 60_000;
const RECOVERY_CHECK_MS = 2000;
/**
 * Removals wait this long, then are checked against the disk and the storage marker
 * together: a name removed and put back within it (an editor's save) is one change, and an
 * unmounted disk is not read as mass deletion.
 */
const REMOVAL_BATCH_MS = 100;
/** Directory mtimes this close to the scan's start are read again (timestamp granularity; coarser file systems rely on the reconcile). */
const MTIME_SLACK_MS = 50;

type Phase = 'idle' | 'watching' | 'fallback' | 'unavailable';
/** Something seen gone: a file (file set), a folder (folder set) or a user's whole directory. */
interface Removal {
  username: string;
  folder: string | null;
  file: string | null;
}
/** Which directory a watch is on: the storage root (username null), a user's root (folder null) or a folder. */
interface DirContext {
  username: string | null;
  folder: string | null;
}
/** A name that changed, looked at every SETTLE_POLL_MS until it has settled. */
interface Pending {
  dir: DirContext;
  name: string;
  /** A `rename` event (created, deleted or moved), not only a write. */
  renamed: boolean;
  /** Size at the last look (-1 before the first). */
  size: number;
  /** When the last event came or the size last moved. */
  since: number;
}

/**
 * Keeps the file index equal to the storage directory while the daemon runs: one `fs.watch`
 * per directory (the storage root, each user, each folder: one inotify watch each), started
 * after the first scan. A name that changed is looked at (lstat) until its size has been
 * still for WRITE_FINISH_MS, then set in the index, which ignores the echo of the daemon's
 * own operations. Removals are applied only once the disk confirms them and the storage
 * directory is still there, so an unmounted disk is never read as mass deletion. Symlinks,
 * names the API cannot address and directories below a folder are not indexed. When the
 * watch cannot be kept (ENOSPC, EMFILE) it falls back to polling directory mtimes plus a
 * periodic reconcile.
 */
export class LiveStorage {
  readonly #n: NimbusContext;
  readonly #watchFactory: WatchFactory;
  readonly #watchers = new Map<string, DirWatcher>();
  readonly #pending = new Map<string, Pending>();
  readonly #dirMtimes = new Map<string, number>();
  readonly #loggedErrors = new Set<string>();
  #phase: Phase = 'idle';
  /** Bumped whenever the watchers are torn down, so late callbacks of old ones do nothing. */
  #generation = 0;
  #removals: Removal[] = [];
  #removalTimer: NodeJS.Timeout | null = null;
  #settleTimer: NodeJS.Timeout | null = null;
  #poller: NodeJS.Timeout | null = null;
  #pollSince = 0;
  #pollRunning: Promise<void> | null = null;
  #fallbackTimer: NodeJS.Timeout | null = null;
  #recoveryTimer: NodeJS.Timeout | null = null;
  #reconciling: Promise<boolean> | null = null;
  #closed = false;
  readonly #isUser = (username: string) => this.#n.store.users.has(username);

  constructor(n: NimbusContext, watchFactory: WatchFactory = watchDir) {
    this.#n = n;
    this.#watchFactory = watchFactory;
  }

  /** Reconciles the index with the disk (one at a time), then (re)starts watching if needed. */
  reconcile(): Promise<boolean> {
    return (this.#reconciling ??= this.#reconcileOnce().finally(() => {
      this.#reconciling = null;
    }));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#generation++;
    this.#clearTimers();
    await this.#reconciling?.catch(() => undefined);
    await this.#pollRunning;
    this.#closeWatchers();
  }

  async #reconcileOnce(): Promise<boolean> {
    const since = Date.now();
    const ok = await reconcileAll(this.#n);
    if (this.#closed) return ok;
    if (!ok) this.#enterUnavailable();
    else if (this.#phase === 'idle' || this.#phase === 'unavailable') void this.#startWatching(since);
    return ok;
  }

  async #startWatching(since: number): Promise<void> {
    this.#clearTimers();
    this.#phase = 'watching';
    this.#n.watcherMode = 'starting';
    const generation = ++this.#generation;
    this.#startPoller(BRIDGE_POLL_MS, since);
    const { storage, index } = this.#n;
    const dirs: [string, DirContext][] = [[this.#n.config.storageDir, { username: null, folder: null }]];
    for (const [username, node] of index.users) {
      dirs.push([storage.path(username), { username, folder: null }]);
      for (const folder of node.folders.keys()) dirs.push([storage.path(username, folder), { username, folder }]);
    }
    for (let i = 0; i < dirs.length; i++) {
      if (i % START_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
      if (generation !== this.#generation) return;
      this.#watch(dirs[i][0], dirs[i][1]);
    }
    // Whatever changed between the scan and each watch's start is found by one last pass.
    await this.#pollOnce();
    if (generation !== this.#generation) return;
    this.#stopPoller();
    this.#n.watcherMode = 'inotify';
  }

  /** Watches one directory, replacing an earlier watch of that path (which may follow a directory moved away). */
  #watch(dir: string, context: DirContext): void {
    if (this.#phase !== 'watching') return;
    this.#unwatch(dir);
    const generation = this.#generation;
    let watcher: DirWatcher;
    try {
      watcher = this.#watchFactory(dir, (event, name) => {
        if (generation === this.#generation) this.#onEvent(dir, context, event, name);
      });
    } catch (err) {
      this.#onError(err, dir);
      return;
    }
    watcher.on('error', (err) => this.#onError(err, dir));
    this.#watchers.set(dir, watcher);
  }

  #onEvent(dir: string, context: DirContext, event: string, name: string | null): void {
    if (this.#phase !== 'watching') return;
    if (name === null) {
      // The kernel did not say which entry: read the whole directory again.
      if (context.username === null) void this.reconcile().catch((err: Error) => this.#onError(err, dir));
      else
        void syncIndexDirectory(this.#n.storage, context.username, context.folder, this.#isUser).catch((err: Error) =>
          this.#onError(err, dir),
        );
      return;
    }
    const key = path.join(dir, name);
    const now = Date.now();
    const pending = this.#pending.get(key);
    if (pending) {
      pending.since = now;
      pending.renamed ||= event === 'rename';
    } else {
      this.#pending.set(key, { dir: context, name, renamed: event === 'rename', size: -1, since: now });
    }
    this.#settleTimer ??= setTimeout(() => void this.#settle(), SETTLE_POLL_MS);
  }

  /** Looks at every changed name: applies the ones that settled, looks again later at the rest. */
  async #settle(): Promise<void> {
    const generation = this.#generation;
    const batch = [...this.#pending];
    const touches = trackTouches(this.#n.index);
    // Never through a link: a user's directory or folder swapped for one reads as gone.
    const stats = await lstatBelow(
      this.#n.config.storageDir,
      batch.map(([p]) => p),
    )
      .catch(() => batch.map(() => null))
      .finally(() => touches.stop());
    // A new generation cleared the timer and the names (and may have set its own timer).
    if (generation !== this.#generation) return;
    this.#settleTimer = null;
    if (this.#phase !== 'watching') return;
    const now = Date.now();
    for (let i = 0; i < batch.length; i++) {
      const [p, pending] = batch[i];
      const stat = stats[i];
      // Changed by the API while it was read: read it again rather than apply a stale stat.
      if (touches.has(pending.dir.username, pending.dir.folder, pending.name)) continue;
      if (stat?.isFile() && pending.dir.username !== null) {
        // Still being written: wait until the size has been still for WRITE_FINISH_MS.
        if (pending.size !== -1 && stat.size !== pending.size) pending.since = now;
        pending.size = stat.size;
        if (now - pending.since < WRITE_FINISH_MS) continue;
      }
      this.#pending.delete(p);
      this.#apply(p, pending, stat).catch((err: Error) => this.#onError(err, p));
    }
    if (this.#pending.size > 0) this.#settleTimer ??= setTimeout(() => void this.#settle(), SETTLE_POLL_MS);
  }

  /** A settled name: what the disk holds now (stat null: nothing) goes into the index. */
  async #apply(p: string, pending: Pending, stat: Stats | null): Promise<void> {
    const { dir, name } = pending;
    if (dir.username === null) return this.#onTopLevel(p, name, stat, pending.renamed);
    const { username, folder } = dir;
    if (!this.#n.store.users.has(username) || !isAddressableName(name)) return;
    if (folder === null && stat?.isDirectory()) {
      if (!pending.renamed) return; // its attributes changed; its contents have their own watch
      this.#n.index.addFolder(username, name, stat.mtimeMs);
      await this.#watchNew(p, { username, folder: name });
    } else if (stat?.isFile()) {
      this.#n.index.setFile(username, folder, name, { size: stat.size, mtimeMs: stat.mtimeMs });
    } else if (folder === null && this.#n.index.user(username)?.folders.has(name)) {
      // A folder gone (or replaced by something that is not one).
      this.#unwatchTree(p);
      this.#queueRemoval({ username, folder: name, file: null });
    } else if (this.#n.index.files(username, folder)?.has(name)) {
      // Gone, or now a symlink or a directory below a folder: not a file the API serves.
      this.#queueRemoval({ username, folder, file: name });
    }
  }

  /**
   * Watches a directory that appeared (or came back), then treats every name in it, and
   * every name the index holds for it, as changed: what was copied in with it (cp -r)
   * landed before the watch listened, and is indexed once settled like any other change.
   */
  async #watchNew(dir: string, context: DirContext): Promise<void> {
    this.#watch(dir, context);
    const generation = this.#generation;
    const names = new Set(await readdir(dir).catch(() => []));
    if (generation !== this.#generation || context.username === null) return;
    const node = this.#n.index.user(context.username);
    const known =
      context.folder === null
        ? [...(node?.root.keys() ?? []), ...(node?.folders.keys() ?? [])]
        : (node?.folders.get(context.folder)?.files.keys() ?? []);
    for (const name of known) names.add(name);
    for (const name of names) this.#onEvent(dir, context, 'rename', name);
  }

  async #onTopLevel(p: string, name: string, stat: Stats | null, renamed: boolean): Promise<void> {
    if (p === this.#n.storage.tmpDir) return;
    const isUser = this.#n.store.users.has(name);
    if (stat?.isDirectory()) {
      if (!isUser) {
        this.#n.orphans.add(name);
        return;
      }
      if (!renamed) return;
      this.#n.index.ensureUser(name);
      await this.#watchNew(p, { username: name, folder: null });
    } else if (stat === null) {
      this.#n.orphans.delete(name);
      this.#unwatchTree(p);
      // Also checks that the storage directory itself is still there (moved away, its watch reports its own name).
      this.#queueRemoval(isUser ? { username: name, folder: null, file: null } : null);
    }
  }

  /** Queues a removal (null: only check that the storage directory is still there). */
  #queueRemoval(removal: Removal | null): void {
    if (removal) this.#removals.push(removal);
    this.#removalTimer ??= setTimeout(
      () => void this.#flushRemovals().catch((err: Error) => this.#onError(err, this.#n.config.storageDir)),
      REMOVAL_BATCH_MS,
    );
  }

  async #flushRemovals(): Promise<void> {
    this.#removalTimer = null;
    const batch = this.#removals;
    this.#removals = [];
    const generation = this.#generation;
    const status = await checkStorage(this.#n.config.storageDir);
    if (generation !== this.#generation) return;
    if (!status.ok) {
      markUnavailable(this.#n, status.reason);
      this.#enterUnavailable();
      return;
    }
    const { index, store, storage } = this.#n;
    const removals = batch.filter((r) => store.users.has(r.username));
    // One pass over the disk for the whole batch (each directory opened once), as for additions.
    const touches = trackTouches(index);
    const stats = await lstatBelow(
      storage.storageDir,
      removals.map((r) => storage.path(r.username, r.folder, r.file)),
    )
      .catch(() => removals.map(() => null))
      .finally(() => touches.stop());
    if (generation !== this.#generation) return;
    for (const [i, r] of removals.entries()) {
      // Gone with its user meanwhile, or changed by the API while it was read (its state is newer).
      if (!store.users.has(r.username) || touchedRemoval(touches, r)) continue;
      // Removed, then put back (an editor's save, a move out and in): keep it.
      const stat = stats[i];
      if (r.file !== null) {
        if (!stat?.isFile()) index.removeFile(r.username, r.folder, r.file);
      } else if (!stat?.isDirectory()) {
        if (r.folder !== null) index.removeFolder(r.username, r.folder);
        else index.replaceUser(r.username, { root: new Map(), folders: new Map(), usedBytes: 0 });
      }
    }
  }

  #onError(err: unknown, where: string): void {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (this.#closed) return;
    if (code === 'ENOSPC' || code === 'EMFILE' || code === 'ENFILE') {
      this.#fallBack(code);
      return;
    }
    if (code === 'ENOENT' || code === 'ENOTDIR') return; // gone between listing and watching; the parent reports it
    if (this.#loggedErrors.has(code)) return;
    this.#loggedErrors.add(code);
    this.#n.log(
      `Nimbus: watching ${where} failed (${code}): ${(err as Error).message ?? String(err)}; the periodic reconcile will repair the index.`,
    );
  }

  /** The watch cannot be kept: say so once, then poll directories and reconcile more often. */
  #fallBack(code: string): void {
    if (this.#phase === 'fallback' || this.#phase === 'unavailable') return;
    this.#phase = 'fallback';
    this.#generation++;
    // What the failed watcher queued is not trusted: the reconcile below reads the disk.
    this.#removals = [];
    this.#n.log(limitMessage(code, FALLBACK_POLL_MS));
    this.#n.watcherMode = 'polling';
    this.#closeWatchers();
    this.#clearTimers();
    this.#startPoller(FALLBACK_POLL_MS, Date.now());
    const every = Math.min(FALLBACK_RECONCILE_MS, this.#n.config.reconcileIntervalMs || FALLBACK_RECONCILE_MS);
    this.#fallbackTimer = setInterval(() => void this.reconcile().catch(() => undefined), every);
    this.#fallbackTimer.unref();
    void this.reconcile().catch((e: Error) => this.#n.log(`Nimbus: reconcile failed: ${e.message}`));
  }

  /** The storage directory is gone: stop watching, keep the index as it is, wait for it. */
  #enterUnavailable(): void {
    if (this.#phase === 'unavailable' || this.#closed) return;
    this.#phase = 'unavailable';
    this.#generation++;
    this.#removals = [];
    this.#n.watcherMode = 'reconcile-only';
    this.#closeWatchers();
    this.#clearTimers();
    this.#recoveryTimer = setInterval(() => {
      void checkStorage(this.#n.config.storageDir).then((status) => {
        if (status.ok && !this.#closed && this.#phase === 'unavailable') {
          if (this.#recoveryTimer) clearInterval(this.#recoveryTimer);
          this.#recoveryTimer = null;
          void this.reconcile().catch((e: Error) => this.#n.log(`Nimbus: reconcile failed: ${e.message}`));
        }
      });
    }, RECOVERY_CHECK_MS);
    this.#recoveryTimer.unref();
  }

  #startPoller(everyMs: number, since: number): void {
    this.#stopPoller();
    this.#pollSince = since;
    this.#dirMtimes.clear();
    this.#poller = setInterval(() => void this.#pollOnce(), everyMs);
    this.#poller.unref();
  }

  #stopPoller(): void {
    if (this.#poller) clearInterval(this.#poller);
    this.#poller = null;
  }

  /** One polling pass: every user and folder directory whose mtime moved is read again. */
  #pollOnce(): Promise<void> {
    return (this.#pollRunning ??= this.#poll()
      .catch((err: Error) => this.#onError(err, this.#n.config.storageDir))
      .finally(() => {
        this.#pollRunning = null;
      }));
  }

  async #poll(): Promise<void> {
    const generation = this.#generation;
    const { storage, store, index } = this.#n;
    const status = await checkStorage(this.#n.config.storageDir);
    if (generation !== this.#generation || this.#closed) return;
    if (!status.ok) {
      markUnavailable(this.#n, status.reason);
      this.#enterUnavailable();
      return;
    }
    // Every directory is stat'ed at once, then only the ones that moved are read.
    const users = [...store.users.keys()];
    const rootsChanged = await Promise.all(users.map((u) => this.#dirChanged(storage.path(u))));
    const folders = users.flatMap((u) => [...(index.user(u)?.folders.keys() ?? [])].map((f) => [u, f] as const));
    const foldersChanged = await Promise.all(folders.map(([u, f]) => this.#dirChanged(storage.path(u, f))));
    for (let i = 0; i < users.length; i++) {
      if (!rootsChanged[i] || generation !== this.#generation) continue;
      const added = await syncIndexDirectory(storage, users[i], null, this.#isUser);
      if (this.#phase === 'watching')
        for (const folder of added) this.#watch(storage.path(users[i], folder), { username: users[i], folder });
    }
    for (let i = 0; i < folders.length; i++) {
      if (!foldersChanged[i] || generation !== this.#generation) continue;
      await syncIndexDirectory(storage, folders[i][0], folders[i][1], this.#isUser);
    }
  }

  async #dirChanged(dir: string): Promise<boolean> {
    const stat = await lstat(dir).catch(() => null);
    const mtime = stat?.mtimeMs ?? -1;
    const before = this.#dirMtimes.get(dir);
    this.#dirMtimes.set(dir, mtime);
    if (before === undefined) return mtime === -1 || mtime >= this.#pollSince - MTIME_SLACK_MS;
    return before !== mtime;
  }

  #unwatch(dir: string): void {
    const watcher = this.#watchers.get(dir);
    if (!watcher) return;
    this.#watchers.delete(dir);
    closeWatcher(watcher);
  }

  /** Stops watching a directory and every directory below it. */
  #unwatchTree(dir: string): void {
    for (const key of [...this.#watchers.keys()]) if (key === dir || key.startsWith(dir + path.sep)) this.#unwatch(key);
  }

  #closeWatchers(): void {
    for (const watcher of this.#watchers.values()) closeWatcher(watcher);
    this.#watchers.clear();
  }

  #clearTimers(): void {
    this.#stopPoller();
    for (const timer of [this.#fallbackTimer, this.#recoveryTimer]) if (timer) clearInterval(timer);
    for (const timer of [this.#removalTimer, this.#settleTimer]) if (timer) clearTimeout(timer);
    this.#fallbackTimer = this.#recoveryTimer = this.#removalTimer = this.#settleTimer = null;
    this.#pending.clear();
  }
}

function closeWatcher(watcher: DirWatcher): void {
  watcher.removeAllListeners(); // a late error of a closed watch means nothing
  watcher.close();
}

/** The one line said when the watch fails: which limit, its value, how to raise it. */
function limitMessage(code: string, pollMs: number): string {
  const fallback = `Falling back to polling the storage directory every ${pollMs / 1000} s (changes show up more slowly).`;
  if (code === 'ENOSPC') {
    const limit = readLimit('/proc/sys/fs/inotify/max_user_watches');
    return `Nimbus: cannot watch the storage directory: the inotify watch limit is reached (ENOSPC, fs.inotify.max_user_watches = ${limit}). ${fallback} Raise it with "sudo sysctl fs.inotify.max_user_watches=524288" (and add that line to /etc/sysctl.conf), then restart Nimbus.`;
  }
  const instances = readLimit('/proc/sys/fs/inotify/max_user_instances');
  return `Nimbus: cannot watch the storage directory: too many open files (${code}; see "ulimit -n", fs.inotify.max_user_instances = ${instances}). ${fallback} Raise the limit (ulimit -n 65536, or LimitNOFILE= in a systemd unit), then restart Nimbus.`;
}

function readLimit(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/** Whether the API changed what a removal names (a file, a folder, a user's directory) while the disk was read. */
function touchedRemoval(touches: Touches, r: Removal): boolean {
  if (r.file !== null) return touches.has(r.username, r.folder, r.file);
  if (r.folder !== null) return touches.has(r.username, null, r.folder);
  return touches.has(null, null, r.username);
}
