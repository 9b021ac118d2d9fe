/**
 * The daemon's upkeep (started by daemon.ts): what a crash may have left in the trash and the
 * versions is put right before the first request, then every hour the trash's due items, the
 * versions past their days, and WebDAV locks that expired unused (never honoured meanwhile) go.
 * And the storage folder followed: the first scan, the watcher, the periodic reconcile.
 */
import { mkdir } from 'node:fs/promises';
import type { NimbusContext } from './context.js';
import type { DaemonOptions } from './daemon-types.js';
import { ApiError } from './errors.js';
import { followWatchedMove } from './services/dav-follow.js';
import { followMovedFolder } from './services/shares.js';
import type { Storage } from './storage/storage.js';
import { LiveStorage } from './storage/watcher.js';
import { sweepExpiredLocks } from './services/dav-locks.js';
import { adoptTrash, purgeTrash, trashRoot } from './services/trash.js';
import { dropPast, sweepVersions } from './services/versions.js';

const TRASH_PURGE_INTERVAL_MS = 60 * 60_000;

/** Recovers the trash and the versions, runs the first purge, and schedules the next; `stop` waits for one running. */
export async function startUpkeep(nimbus: NimbusContext, log: (line: string) => void): Promise<{ stop(): Promise<void> }> {
  // The trash after a crash: entries without records adopted, records without entries dropped; then what is due is purged.
  await mkdir(trashRoot(nimbus), { recursive: true, mode: 0o700 });
  await adoptTrash(nimbus);
  // Versions after a crash: bytes without a record removed, records without bytes dropped (docs/versions.md).
  await sweepVersions(nimbus).catch((err: Error) => log(`Nimbus: sweeping the versions failed: ${err.message}`));
  const purge = () =>
    Promise.all([
      purgeTrash(nimbus).catch((err: Error) => log(`Nimbus: purging the trash failed: ${err.message}`)),
      dropPast(nimbus)
        .then((n) => (n > 0 ? nimbus.store.commit() : undefined))
        .catch((err: Error) => log(`Nimbus: dropping old versions failed: ${err.message}`)),
      sweepExpiredLocks(nimbus).catch((err: Error) => log(`Nimbus: sweeping expired WebDAV locks failed: ${err.message}`)),
    ]);
  let purging: Promise<unknown> = purge();
  await purging;
  const timer = setInterval(() => (purging = purging.then(purge)), TRASH_PURGE_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await purging;
    },
  };
}

/** The storage folder followed: the first scan (in the background), the watcher, and the periodic reconcile. */
export function followStorageFolder(
  target: NimbusContext & { storage: Storage },
  watchFactory: DaemonOptions['watchFactory'],
  log: (line: string) => void,
) {
  const { storageDir, reconcileIntervalMs } = target.config;
  const live = new LiveStorage(target, watchFactory, (move) => {
    followMovedFolder(target, move.username, move.from, move.to);
    followWatchedMove(target, move.username, move.from, move.to);
  });
  const rescan = async () => {
    if (!(await live.reconcile())) throw new ApiError('storage_unavailable', `The storage directory ${storageDir} is not available`);
  };
  const scanning = live.reconcile().catch((err: Error) => log(`Nimbus: the first scan of ${storageDir} failed: ${err.message}`));
  const timer =
    reconcileIntervalMs > 0
      ? setInterval(
          () => void live.reconcile().catch((err: Error) => log(`Nimbus: the periodic reconcile failed: ${err.message}`)),
          reconcileIntervalMs,
        )
      : null;
  timer?.unref();
  return { live, rescan, scanning, timer };
}
