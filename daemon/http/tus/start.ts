/**
 * Resumable uploads opened with the daemon (daemon.ts): the uploads a previous run kept read
 * back (their quota held again) before the server listens, the expired swept then and
 * periodically. With several daemons (cluster mode) they are rows every daemon shares
 * (services/tus-cluster.ts), and every daemon sweeps.
 */
import path from 'node:path';
import type { NimbusContext } from '../../context.js';
import { TusUploads, type TusService } from '../../services/tus-uploads.js';
import type { PgQuotaLedger } from '../../services/pg-quota.js';
import type { ObjectStorage } from '../../storage/cluster/object-storage.js';
import { PartialUploads } from '../../storage/tus-partials.js';
import { indexSettled } from '../dispatch.js';

/** The sweep runs every quarter of the expiry, at least every hour and at most every second. */
const sweepEvery = (expiryMs: number) => Math.min(3_600_000, Math.max(1000, expiryMs / 4));

export interface ResumableUploads {
  uploads: TusService;
  /** Stops the sweep (waiting for one running). */
  close(): Promise<void>;
}

export async function openResumableUploads(nimbus: NimbusContext, cluster: boolean): Promise<ResumableUploads> {
  const settled = (username: string) =>
    nimbus.index.state === 'scanning' && !nimbus.index.isComplete(username) ? indexSettled(nimbus.index, username) : Promise.resolve();
  const options = { expiryMs: nimbus.config.uploadExpiryMs, settled };
  let uploads: TusService;
  const { database } = nimbus.store;
  if (cluster && database) {
    // Loaded only here: the embedded daemon never loads pg or the bucket's modules (an install
    // without them runs; docs/shipping.md).
    const { ClusterTusUploads } = await import('../../services/tus-cluster.js');
    uploads = new ClusterTusUploads(nimbus, database, nimbus.quota as PgQuotaLedger, nimbus.storage as ObjectStorage, options);
  } else {
    const onDisk = new TusUploads(nimbus, new PartialUploads(path.join(nimbus.config.dataDir, 'tus')), options);
    await onDisk.open();
    uploads = onDisk;
  }
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () =>
    uploads.sweep().then(
      (dropped) => dropped > 0 && nimbus.logger.info({ dropped }, 'Nimbus: expired resumable uploads dropped'),
      (err: Error) => nimbus.log(`Nimbus: sweeping expired resumable uploads failed: ${err.message}`),
    );
  const timer = setInterval(() => (sweeping = sweeping.then(sweep)), sweepEvery(nimbus.config.uploadExpiryMs));
  timer.unref();
  return {
    uploads,
    close: async () => {
      clearInterval(timer);
      await sweeping;
    },
  };
}
