/**
 * The start-up's removal of what a crash left in users' trees: a folder copy's hidden
 * directory, a staged entry, a replacing upload's staging file (staging-names.ts). Reserved
 * names are never indexed nor counted, so without this their bytes would stay on disk,
 * outside every quota, for good. The first scan reports the ones it meets (scan-rules.ts:
 * no second walk of the tree); each is removed before its user's part of the index is
 * complete, so before any request of that user could have started a copy or a move. A runtime
 * rescan or the watcher never removes one: a copy may be in flight then.
 */
import { isNoDir, readdirOrNull } from './fs-helpers.js';
import { withDir, type OpenDir } from './safe-dir.js';
import { lstatIn, removeTree } from './safe-ops.js';
import type { Leftover } from './scan-rules.js';

/** One start-up's removals, counted for its one log line. */
export class LeftoverSweep {
  #count = 0;
  #bytes = 0;

  constructor(
    readonly storageDir: string,
    readonly log: (line: string) => void,
  ) {}

  /**
   * Removes the leftovers found in one user's tree, each through its folder opened without
   * following links (a link planted at any level, or as the leftover itself, is never
   * followed: the link alone is removed). One gone meanwhile, or below a folder swapped for a
   * link, is skipped; one that cannot be removed is logged and left.
   */
  async remove(username: string, found: Leftover[]): Promise<void> {
    for (const { folder, name } of found) {
      try {
        await withDir(this.storageDir, [username, ...folder], async (dir) => {
          const bytes = await bytesOf(dir, name);
          await removeTree(dir, name);
          this.#count++;
          this.#bytes += bytes;
        });
      } catch (err) {
        if (isNoDir(err)) continue;
        this.log(
          `Nimbus: could not remove ${[username, ...folder, name].join('/')}, left by an interrupted copy or move: ${(err as Error).message}`,
        );
      }
    }
  }

  /** Says what was removed, in one line (nothing when there was nothing). */
  report(): void {
    if (this.#count === 0) return;
    const what = this.#count === 1 ? 'leftover' : 'leftovers';
    this.log(
      `Nimbus: removed ${this.#count.toLocaleString('en-US')} ${what} of interrupted copies and moves from the storage folder (${this.#bytes.toLocaleString('en-US')} bytes).`,
    );
  }
}

/** The bytes of the regular files at `name` in `dir` and below it, no link followed (a link counts nothing). */
async function bytesOf(dir: OpenDir, name: string): Promise<number> {
  const stat = await lstatIn(dir, name);
  if (stat?.isFile()) return stat.size;
  if (!stat?.isDirectory()) return 0;
  let sub: OpenDir;
  try {
    sub = await dir.child(name);
  } catch (err) {
    if (isNoDir(err)) return 0;
    throw err;
  }
  try {
    let total = 0;
    for (const entry of (await readdirOrNull(sub.at())) ?? []) total += await bytesOf(sub, entry.name);
    return total;
  } finally {
    await sub.close();
  }
}
