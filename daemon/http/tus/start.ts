/**
 * Resumable uploads opened with the daemon (daemon.ts): the uploads a previous run kept read
 * back (their quota held again) before the server listens, the expired swept then and
 * periodically. None with several daemons (cluster mode): the door answers 501 there.
 */
import path from 'node:path';
import type { NimbusContext } from '../../context.js';
import { TusUploads } from '../../services/tus-uploads.js';
import { PartialUploads } from '../../storage/tus-partials.js';
import { indexSettled } from '../dispatch.js';

/** The sweep runs every quarter of the expiry, at least every hour and at most every second. */
const sweepEvery = (expiryMs: number) => Math.min(3_600_000, Math.max(1000, expiryMs / 4));

export interface ResumableUploads {
  uploads: TusUploads;
  /** Stops the sweep (waiting for one running). */
  close(): Promise<void>;
}

export async function openResumableUploads(nimbus: NimbusContext, cluster: boolean): Promise<ResumableUploads | null> {
  if (cluster) return null;
  const settled = (username: string) =>
    nimbus.index.state === 'scanning' && !nimbus.index.isComplete(username) ? indexSettled(nimbus.index, username) : Promise.resolve();
  const uploads = new TusUploads(nimbus, new PartialUploads(path.join(nimbus.config.dataDir, 'tus')), {
    expiryMs: nimbus.config.uploadExpiryMs,
    settled,
  });
  await uploads.open();
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
