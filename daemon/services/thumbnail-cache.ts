import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChangeEvent } from '../../shared/types.js';

/** Where a picture comes from: one file of one user. */
export interface ThumbnailSource {
  username: string;
  folder: string | null;
  file: string;
}

/** What tells the cache that files changed: the file index. */
export interface ChangeSource {
  on(event: 'change', listener: (event: ChangeEvent) => void): unknown;
}

/** Kept after an eviction, so one new picture does not start another walk at once. */
const EVICT_TO = 0.9;

const hashed = (part: string) => createHash('sha256').update(part).digest('hex').slice(0, 32);

/**
 * Thumbnails on disk, outside the storage folder: `<root>/<user>/<folder>/<file>/<key>.webp`,
 * each level a hash (names may be long, differ only in case, or hold anything a file
 * name may). The key (made by the caller) covers what identifies the file's bytes and the
 * edge, so a changed file can never get an old picture, whatever events were missed. The
 * index's change events only keep the cache small: a changed or removed file, folder or
 * user has its directory deleted. Pictures are written to a temp file and renamed into
 * place (a reader never sees half a picture); the total is capped, the least recently
 * used (oldest mtime: a hit touches its entry) deleted first.
 */
export class ThumbnailCache {
  readonly root: string;
  readonly #capBytes: number;
  /** Bytes on disk as last counted, plus what was written since. */
  #bytes = 0;
  readonly #counted: Promise<void>;
  /** Bumped when a directory is dropped: a picture rendered from older bytes is then not kept. */
  readonly #generations = new Map<string, number>();
  #evicting: Promise<void> | null = null;

  constructor(root: string, capBytes: number, changes?: ChangeSource) {
    this.root = root;
    this.#capBytes = capBytes;
    this.#counted = this.#removeHalfWritten().then(async () => {
      const entries = await this.#entries();
      this.#bytes += entries.reduce((sum, e) => sum + e.size, 0);
    });
    changes?.on('change', (event) => this.#onChange(event));
  }

  /** The path of a picture of `source` under `key` (a hex digest of the bytes' identity and the edge). */
  entryPath(source: ThumbnailSource, key: string): string {
    return path.join(this.#dirOf(source), `${key}.webp`);
  }

  /** A picture kept under `entry`, or null; a hit counts as a use (eviction goes oldest first). */
  async read(entry: string): Promise<Buffer | null> {
    try {
      const bytes = await readFile(entry);
      const now = new Date();
      void utimes(entry, now, now).catch(() => undefined);
      return bytes;
    } catch (err) {
      // Not there, or a level of it is not a directory (a cache broken by hand): a miss either way.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw err;
    }
  }

  /** A number that changes whenever the source's pictures are dropped (see `write`). */
  generation(source: ThumbnailSource): number {
    let sum = 0;
    for (const dir of this.#levels(source)) sum += this.#generations.get(dir) ?? 0;
    return sum;
  }

  /**
   * Keeps a picture, unless the source changed since `generation` was read (its bytes may
   * be the old file's: never worth keeping, though its key could not be served for the new one).
   */
  async write(source: ThumbnailSource, entry: string, bytes: Buffer, generation: number): Promise<void> {
    await this.#counted;
    if (this.generation(source) !== generation) return;
    const temp = path.join(this.root, `.tmp-${randomBytes(8).toString('hex')}`);
    await mkdir(path.dirname(entry), { recursive: true, mode: 0o700 });
    try {
      await writeFile(temp, bytes, { mode: 0o600 });
      if (this.generation(source) !== generation) return;
      await rename(temp, entry);
    } catch (err) {
      // The file's directory was dropped between mkdir and rename: its file changed, keep nothing.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    } finally {
      await rm(temp, { force: true });
    }
    this.#bytes += bytes.length;
    if (this.#bytes > this.#capBytes) await this.evict();
  }

  /** Deletes the oldest pictures until the cache is under its cap (one walk at a time). */
  evict(): Promise<void> {
    this.#evicting ??= this.#evict().finally(() => {
      this.#evicting = null;
    });
    return this.#evicting;
  }

  /** Waits for the first count of what is on disk (tests). */
  ready(): Promise<void> {
    return this.#counted;
  }

  async #evict(): Promise<void> {
    const entries = await this.#entries();
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    if (total > this.#capBytes) {
      entries.sort((a, b) => a.mtimeMs - b.mtimeMs);
      const target = this.#capBytes * EVICT_TO;
      for (const entry of entries) {
        if (total <= target) break;
        await rm(entry.path, { force: true });
        total -= entry.size;
      }
    }
    this.#bytes = total;
  }

  #onChange(event: ChangeEvent): void {
    const { type, username, folder, file } = event;
    if (username === null) return;
    // An added file may reuse the name of one removed while the index was not looking.
    if ((type === 'file.added' || type === 'file.changed' || type === 'file.removed') && file !== null)
      this.#drop(this.#dirOf({ username, folder, file }));
    else if (type === 'folder.removed' && folder !== null) this.#drop(path.join(this.root, hashed(username), hashed(folder)));
    // Thumbnails are kept by path: a moved folder's old ones would be found again by a new folder of that name.
    else if (type === 'folder.moved' && event.from !== undefined) this.#drop(path.join(this.root, hashed(username), hashed(event.from)));
    else if (type === 'user.removed') this.#drop(path.join(this.root, hashed(username)));
  }

  #drop(dir: string): void {
    this.#generations.set(dir, (this.#generations.get(dir) ?? 0) + 1);
    void rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }

  #dirOf(source: ThumbnailSource): string {
    return this.#levels(source)[2];
  }

  /** The user's, the folder's and the file's directories. */
  #levels({ username, folder, file }: ThumbnailSource): [string, string, string] {
    const user = path.join(this.root, hashed(username));
    // The root's files sit beside the folders: a name no folder can have (folder names are never empty).
    const where = path.join(user, hashed(folder === null ? '' : folder));
    return [user, where, path.join(where, hashed(file))];
  }

  /**
   * Deletes the pictures a crash left half written (`.tmp-*` beside the users' directories,
   * which no walk counts or evicts): before this cache writes any of its own.
   */
  async #removeHalfWritten(): Promise<void> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    await Promise.all(names.filter((name) => name.startsWith('.tmp-')).map((name) => rm(path.join(this.root, name), { force: true })));
  }

  /** Every picture on disk, with its size and last use. */
  async #entries(): Promise<{ path: string; size: number; mtimeMs: number }[]> {
    const found: { path: string; size: number; mtimeMs: number }[] = [];
    const walk = async (dir: string, depth: number): Promise<void> => {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return; // gone meanwhile, or not there yet
      }
      for (const name of names) {
        const full = path.join(dir, name);
        if (depth < 3) await walk(full, depth + 1);
        else if (name.endsWith('.webp')) {
          const info = await stat(full).catch(() => null);
          if (info?.isFile()) found.push({ path: full, size: info.size, mtimeMs: info.mtimeMs });
        }
      }
    };
    await walk(this.root, 0);
    return found;
  }
}
