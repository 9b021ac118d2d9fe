import type { ReconcileTarget } from '../reconcile.js';

/** How the storage directory is followed, as /api/dash reports it ('inotify': the native watch is on). */
export type WatcherMode = 'inotify' | 'polling' | 'reconcile-only' | 'starting' | 'none';

/** What the live storage reads and changes: the reconcile's target, plus the mode it reports. */
export interface LiveTarget extends ReconcileTarget {
  config: { storageDir: string; reconcileIntervalMs: number };
  watcherMode: WatcherMode;
}
