/**
 * The watcher's echo of the daemon's own folder moves. A folder moved or renamed through the
 * API is relinked in the index at once, whole (index-relink.ts); the watcher then reports the
 * directory at its new path as new, and listing it as new re-reads the whole subtree, level by
 * level: about 5 s of CPU after a move of 100,000 files (bench row "Tree: move a subtree"). The
 * move leaves its expectation here, the directory's identity at the new path, and the watcher
 * takes it: the same directory (device and inode) at that path is the echo, nothing to list.
 * Anything else there (another directory put in its place meanwhile) is listed as before.
 */
import type { Stats } from 'node:fs';
import type { DirId } from './index-tree.js';

/** How long an expectation waits for its echo (the watcher's batches come within a second). */
const ECHO_WAIT_MS = 30_000;
/** At most this many waiting at once: the oldest go first (listing again is only slower, never wrong). */
const MAX_WAITING = 1_000;

export class MoveEchoes {
  readonly #waiting = new Map<string, DirId & { until: number }>();

  /** The folder at `path` is the directory `id`, moved there by the daemon just now. */
  expect(username: string, path: string, id: DirId): void {
    if (id.ino === 0) return; // not known: the echo is listed as any new directory
    const key = `${username}\0${path}`;
    this.#waiting.delete(key);
    this.#waiting.set(key, { ...id, until: Date.now() + ECHO_WAIT_MS });
    for (const oldest of this.#waiting.keys()) {
      if (this.#waiting.size <= MAX_WAITING) break;
      this.#waiting.delete(oldest);
    }
  }

  /** Whether the directory seen at `path` is the echo of a move expected there (taken: it answers true once). */
  take(username: string, path: string, stat: Stats): boolean {
    const key = `${username}\0${path}`;
    const waiting = this.#waiting.get(key);
    if (!waiting) return false;
    this.#waiting.delete(key);
    return waiting.until >= Date.now() && waiting.dev === stat.dev && waiting.ino === stat.ino;
  }
}
