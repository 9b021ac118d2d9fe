import { readFileSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { watch, type ChokidarOptions, type FSWatcher } from 'chokidar';
import type { NimbusContext } from '../context.js';
import { checkStorage } from './availability.js';
import { markUnavailable, reconcileAll } from './reconcile.js';
import { isAddressableName } from './scan.js';
import { syncDirectory } from './sync.js';

/** Creates one chokidar watcher; tests pass their own to make the watch fail. */
export type WatchFactory = (dir: string, options: ChokidarOptions) => FSWatcher;

/** An add is reported once the file's size has been still this long (not chokidar's 2 s default). */
const WRITE_FINISH = { stabilityThreshold: 200, pollInterval: 50 };
/** Directories whose watchers start at once: bounds chokidar's start-up garbage (and RSS). */
const START_CONCURRENCY = 4;
/** While the watchers start, directories are polled so a file copied in still shows at once. */
const BRIDGE_POLL_MS = 200;
const FALLBACK_POLL_MS = 2000;
const FALLBACK_RECONCILE_MS = 60_000;
const RECOVERY_CHECK_MS = 2000;
/** Removals wait this long, then are checked against the disk and the storage marker together. */
const REMOVAL_BATCH_MS = 50;
/** Directory mtimes this close to the scan's start are read again (timestamp granularity; coarser file systems rely on the reconcile). */
const MTIME_SLACK_MS = 50;

type Phase = 'idle' | 'watching' | 'fallback' | 'unavailable';
/** Something seen gone: a file (file set), a folder (folder set) or a user's whole directory. */
interface Removal {
  username: string;
  folder: string | null;
  file: string | null;
}

/**
 * Keeps the file index equal to the storage directory while the daemon runs: one chokidar
 * watcher per directory (the storage root, each user, each folder; depth 0 each, so one
 * inotify watch per directory), started a few at a time after the first scan. Its events
 * update the index, which ignores the echo of the daemon's own operations. Removals are
 * applied only once the disk confirms them and the storage directory is still there, so an
 * unmounted disk is never read as mass deletion. When the watch cannot be kept (ENOSPC,
 * EMFILE) it falls back to polling directory mtimes plus a periodic reconcile.
 */
export class LiveStorage {
  readonly #n: NimbusContext;
  readonly #watchFactory: WatchFactory;
  readonly #watchers = new Map<string, FSWatcher>();
  readonly #readyWaiters = new Map<FSWatcher, () => void>();
  readonly #dirMtimes = new Map<string, number>();
  readonly #loggedErrors = new Set<string>();
  #phase: Phase = 'idle';
  /** Bumped whenever the watchers are torn down, so late callbacks of old ones do nothing. */
  #generation = 0;
  #removals: Removal[] = [];
  #removalTimer: NodeJS.Timeout | null = null;
  #poller: NodeJS.Timeout | null = null;
  #pollSince = 0;
  #pollRunning: Promise<void> | null = null;
  #fallbackTimer: NodeJS.Timeout | null = null;
  #recoveryTimer: NodeJS.Timeout | null = null;
  #reconciling: Promise<boolean> | null = null;
  #closed = false;
  readonly #isUser = (username: string) => this.#n.store.users.has(username);

  constructor(n: NimbusContext, watchFactory: WatchFactory = watch) {
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
    await this.#closeWatchers();
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
    const dirs = [this.#n.config.storageDir];
    for (const [username, node] of this.#n.index.users) {
      dirs.push(this.#n.storage.path(username));
      for (const folder of node.folders.keys()) dirs.push(this.#n.storage.path(username, folder));
    }
    let next = 0;
    const worker = async () => {
      while (next < dirs.length && generation === this.#generation) await this.#watch(dirs[next++], generation);
    };
    await Promise.all(Array.from({ length: START_CONCURRENCY }, worker));
    if (generation !== this.#generation) return;
    // Whatever changed between the scan and each watcher's start is found by one last pass.
    await this.#pollOnce();
    if (generation !== this.#generation) return;
    this.#stopPoller();
    this.#n.watcherMode = 'inotify';
  }

  /** Watches one directory; resolves once chokidar has listed it (or the watch is dropped). */
  #watch(dir: string, generation: number): Promise<void> {
    if (generation !== this.#generation || this.#watchers.has(dir)) return Promise.resolve();
    let watcher: FSWatcher;
    try {
      watcher = this.#watchFactory(dir, this.#options());
    } catch (err) {
      this.#onError(err, dir);
      return Promise.resolve();
    }
    this.#watchers.set(dir, watcher);
    watcher.on('all', (event, p) => {
      if (generation === this.#generation) this.#onEvent(event, p).catch((err: Error) => this.#onError(err, p));
    });
    watcher.on('error', (err) => this.#onError(err, dir));
    return new Promise((resolve) => {
      this.#readyWaiters.set(watcher, resolve);
      watcher.once('ready', () => {
        this.#readyWaiters.delete(watcher);
        resolve();
      });
    });
  }

  #options(): ChokidarOptions {
    const { storageDir } = this.#n.config;
    const tmpDir = this.#n.storage.tmpDir;
    return {
      depth: 0,
      ignoreInitial: true, // the scan built the index
      followSymlinks: false,
      alwaysStat: false, // the index keeps {size, mtimeMs}; we lstat what we need
      awaitWriteFinish: WRITE_FINISH,
      atomic: true, // unlink + add within 100 ms (an editor's save) is one change
      ignored: (p, stats) => {
        if (stats?.isSymbolicLink()) return true;
        if (p === tmpDir || p.startsWith(tmpDir + path.sep)) return true;
        const parts = relativeParts(storageDir, p);
        if (parts === null) return false;
        if (parts.length > 3 || (parts.length === 3 && stats?.isDirectory())) return true;
        return parts.length >= 2 && !isAddressableName(parts[parts.length - 1]);
      },
    };
  }

  async #onEvent(event: string, p: string): Promise<void> {
    if (this.#phase !== 'watching') return;
    const parts = relativeParts(this.#n.config.storageDir, p);
    if (parts === null || parts.length === 0) {
      if (event === 'unlinkDir') this.#queueRemoval(null); // the storage directory itself
      return;
    }
    const username = parts[0];
    if (parts.length === 1) return this.#onTopLevel(event, username, p);
    if (!this.#n.store.users.has(username) || parts.length > 3) return;
    const folder = parts.length === 3 ? parts[1] : null;
    const name = parts[parts.length - 1];
    if (!isAddressableName(name) || (folder !== null && !isAddressableName(folder))) return;
    if (event === 'add' || event === 'change') {
      const stat = await lstat(p).catch(() => null);
      if (this.#phase !== 'watching' || !this.#n.store.users.has(username)) return;
      if (stat?.isFile()) this.#n.index.setFile(username, folder, name, { size: stat.size, mtimeMs: stat.mtimeMs });
      else this.#queueRemoval({ username, folder, file: name });
    } else if (event === 'unlink') {
      this.#queueRemoval({ username, folder, file: name });
    } else if (event === 'addDir' && folder === null) {
      const stat = await lstat(p).catch(() => null);
      if (!stat?.isDirectory() || this.#phase !== 'watching') return;
      this.#n.index.addFolder(username, name, stat.mtimeMs);
      await this.#watch(p, this.#generation);
      // Files copied in with the folder (cp -r) landed before its watcher listened.
      if (this.#phase === 'watching') await syncDirectory(this.#n.storage, username, name, this.#isUser);
    } else if (event === 'unlinkDir' && folder === null) {
      await this.#unwatchTree(p);
      this.#queueRemoval({ username, folder: name, file: null });
    }
  }

  async #onTopLevel(event: string, name: string, p: string): Promise<void> {
    const isUser = this.#n.store.users.has(name);
    if (event === 'addDir') {
      if (!isUser) {
        this.#n.orphans.add(name);
        return;
      }
      this.#n.index.ensureUser(name);
      await this.#watch(p, this.#generation);
      if (this.#phase === 'watching') {
        for (const folder of await syncDirectory(this.#n.storage, name, null, this.#isUser)) await this.#watch(this.#n.storage.path(name, folder), this.#generation);
      }
    } else if (event === 'unlinkDir') {
      this.#n.orphans.delete(name);
      await this.#unwatchTree(p);
      if (isUser) this.#queueRemoval({ username: name, folder: null, file: null });
    }
  }

  /** Queues a removal (null: only check that the storage directory is still there). */
  #queueRemoval(removal: Removal | null): void {
    if (removal) this.#removals.push(removal);
    this.#removalTimer ??= setTimeout(() => void this.#flushRemovals().catch((err: Error) => this.#onError(err, this.#n.config.storageDir)), REMOVAL_BATCH_MS);
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
    for (const r of batch) {
      if (!store.users.has(r.username)) continue;
      // Removed, then put back (an editor's save, a move out and in): keep it.
      const stat = await lstat(storage.path(r.username, r.folder, r.file)).catch(() => null);
      if (generation !== this.#generation) return;
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
    this.#n.log(`Nimbus: watching ${where} failed (${code}): ${(err as Error).message ?? String(err)}; the periodic reconcile will repair the index.`);
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
    void this.#closeWatchers();
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
    void this.#closeWatchers();
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
      const added = await syncDirectory(storage, users[i], null, this.#isUser);
      if (this.#phase === 'watching') for (const folder of added) void this.#watch(storage.path(users[i], folder), generation);
    }
    for (let i = 0; i < folders.length; i++) {
      if (!foldersChanged[i] || generation !== this.#generation) continue;
      await syncDirectory(storage, folders[i][0], folders[i][1], this.#isUser);
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

  async #unwatchTree(dir: string): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [key, watcher] of this.#watchers) {
      if (key !== dir && !key.startsWith(dir + path.sep)) continue;
      this.#watchers.delete(key);
      closing.push(this.#closeWatcher(watcher));
    }
    await Promise.all(closing);
  }

  async #closeWatchers(): Promise<void> {
    const all = [...this.#watchers.values()];
    this.#watchers.clear();
    await Promise.all(all.map((w) => this.#closeWatcher(w)));
  }

  async #closeWatcher(watcher: FSWatcher): Promise<void> {
    this.#readyWaiters.get(watcher)?.();
    this.#readyWaiters.delete(watcher);
    await watcher.close().catch(() => undefined);
  }

  #clearTimers(): void {
    this.#stopPoller();
    for (const timer of [this.#fallbackTimer, this.#recoveryTimer]) if (timer) clearInterval(timer);
    if (this.#removalTimer) clearTimeout(this.#removalTimer);
    this.#fallbackTimer = this.#recoveryTimer = this.#removalTimer = null;
  }
}

/** The path's components below the storage directory; null when it is not inside it. */
function relativeParts(storageDir: string, p: string): string[] | null {
  const rel = path.relative(storageDir, p);
  if (rel === '') return [];
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep);
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
