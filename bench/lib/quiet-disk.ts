/**
 * The disk as quiet for each server's timed series as for the others'.
 *
 * Dirty pages: nginx and `rclone serve` do not fsync, so the 136 MB a round of theirs wrote was
 * written back by the kernel while the next server ran, and its fsyncs waited behind it: the
 * server after them measured 900–1,050 PUTs/s where it did 1,600–2,100 otherwise. `settle()`
 * runs sync(1) before every timed series.
 *
 * Mass deletions kept out of the timed rounds. On ext4 without a journal (this machine's disk),
 * a new inode is never one freed in the last 30 s (`recently_deleted`, after
 * dirty_expire_centisecs), and every file created meanwhile scans past them. `perf` of 4 KiB
 * uploads begun just after an `rm -rf` of 6,000 files: a quarter of the daemon's samples in
 * `recently_deleted` and the inode-table lookups under it, and 1,800 µs of CPU an upload
 * against 300 half a minute later (bench/NOTES.md, issue 30). Whichever server came after one
 * that deleted paid for it, so the scenarios that create thousands of files delete theirs after
 * their last round, and the next such scenario waits until those deletions are 30 s old.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/** ext4's window (dirty_expire_centisecs = 3000), and a second more. */
const RECENTLY_DELETED_MS = 31_000;

let lastDeletedAt = -Infinity;

/** Runs deletions, and notes when they ended. */
export async function deleting(work: () => Promise<void> | void): Promise<void> {
  try {
    await work();
  } finally {
    lastDeletedAt = performance.now();
  }
}

/** Waits until the last deletions are older than ext4's window (at once when there were none). */
export async function untilDeletionsAged(log: (line: string) => void): Promise<void> {
  const wait = lastDeletedAt + RECENTLY_DELETED_MS - performance.now();
  if (wait <= 0) return;
  log(`  waiting ${(wait / 1000).toFixed(0)} s for the last deletions to age (bench/lib/quiet-disk.ts)`);
  await sleep(wait);
}

/** Writes every dirty page back (sync(1)) so a series does not pay for the one before it. */
export function settle(): void {
  execFileSync('sync');
}
