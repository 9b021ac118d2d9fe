import type { WatcherMode } from '../../../shared/types.js';
import type { ReconcileTarget } from '../reconcile.js';

export type { WatcherMode } from '../../../shared/types.js';

/** What the live storage reads and changes: the reconcile's target, plus the mode it reports. */
export interface LiveTarget extends ReconcileTarget {
  config: { storageDir: string; reconcileIntervalMs: number };
  watcherMode: WatcherMode;
}
