/**
 * The synchronous side of the Linux scan (daemon/storage/scan.ts): directories opened by fd and
 * read through /proc/self/fd, and the `slicer` that lets the event loop through once about a
 * millisecond of such work has run; and the walk of the inotify watch (live/inotify.ts).
 */
import { closeSync, constants, openSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { isNoDir } from './fs-helpers.js';

/** How long synchronous file-system work runs before the event loop gets a turn. */
const SLICE_MS = 1;

/** Yields to the event loop (setImmediate: after pending I/O) once a slice of synchronous work has run its time. */
class Slicer {
  #since = performance.now();
  #pause: Promise<void> | null = null;

  /**
   * A promise to await when the slice is over, else null (no await, so no microtask per
   * file). Every caller past the slice gets the same pause: with a pause each, the pool's
   * 8 readers resumed one after another within one turn of the loop, each for a whole
   * slice, and requests waited ~8 ms between turns instead of ~1 (measured: /api/dash
   * during the first scan, p50 9-17 ms against 2-3 ms before the sliced reads).
   */
  due(): Promise<void> | null {
    if (this.#pause) return this.#pause;
    if (performance.now() - this.#since < SLICE_MS) return null;
    return (this.#pause = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.#since = performance.now();
        this.#pause = null;
        resolve();
      }),
    ));
  }
}

/**
 * One for the module, so that the slice is counted across calls: 10,000 empty users each
 * read in ~20 µs, in a pool of awaits that never reach the loop, would otherwise hold it
 * for the whole first scan.
 */
export const slicer = new Slicer();

/** Opens a directory for reading (O_NOFOLLOW is added where a link must not be followed). */
export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

/** A directory open by fd, read through /proc/self/fd (as OpenDir on Linux, synchronously). */
export class SyncDir {
  constructor(readonly fd: number) {}

  at(name?: string): string {
    return name === undefined ? `/proc/self/fd/${this.fd}` : `/proc/self/fd/${this.fd}/${name}`;
  }

  /** The directory `name` in this one, never through a link; null when there is none (as openOrNull). */
  child(name: string): SyncDir | null {
    return openDirOrNull(this.at(name), DIR_FLAGS | constants.O_NOFOLLOW);
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Already gone with the process's descriptors: nothing to release.
    }
  }
}

/** ENOENT, ENOTDIR and ELOOP (O_NOFOLLOW on a link) mean "no real directory there": null, as `openOrNull`. */
export function openDirOrNull(p: string, flags: number): SyncDir | null {
  try {
    return new SyncDir(openSync(p, flags));
  } catch (err) {
    if (isNoDir(err) || (err as NodeJS.ErrnoException).code === 'ELOOP') return null;
    throw err;
  }
}

/** A directory's entries, or null when there is none (as `readdirOrNull`, synchronously). */
export function readdirSyncOrNull(dir: string): Dirent[] | null {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (isNoDir(err)) return null;
    throw err;
  }
}

/**
 * Every directory at and below `root`, depth first in the order read: `enter(dir)` is called
 * before `dir` is read, and false leaves it and what is below it out. The reads are synchronous,
 * with the event loop let through every slice: through the thread pool each directory cost
 * ~40 µs of the main thread and a hop, and the inotify watch of a million-file tree's 100,000
 * directories took 11–14 s against the library's 8 s; read here, 8–9 s (bench/NOTES.md,
 * issue 30). A directory that cannot be read (gone meanwhile) has nothing below it.
 */
export async function walkSliced(root: string, enter: (dir: string) => boolean): Promise<void> {
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    if (!enter(dir)) continue;
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      // Gone or unreadable since it was entered: as a failed read always was for the watch.
    }
    // Pushed last first, so that they are taken in the order read.
    for (let i = entries.length - 1; i >= 0; i--) if (entries[i].isDirectory()) pending.push(path.join(dir, entries[i].name));
    const pause = slicer.due();
    if (pause) await pause;
  }
}
