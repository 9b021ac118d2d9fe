/**
 * The bucket made sure of when a daemon starts, waiting while the S3 server is still starting
 * beside it (deploy/compose.yaml starts them together): a connection refused or dropped, or a
 * 5xx (Swift's s3api answers "Please reduce your request rate", a 503, while its backends are
 * still busy on a loaded machine), is tried again for up to a minute, said once in the log. An
 * answer that names a mistake (a 403 for a wrong key, a 400) ends the start at once: waiting
 * would not mend it.
 *
 * Why: the daemon used to exit at the first such answer, and its container's restarts met the
 * same answers within seconds; CI's cluster-containers journey failed so on a slow machine.
 */
import type { ObjectStore } from './object-store.js';

/** How long a start waits for the bucket. */
export const BUCKET_WAIT_MS = 60_000;
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 2_000;

/** Whether a failed call may succeed by waiting: no HTTP answer at all, or a 5xx. */
export function mayPassLater(err: unknown): boolean {
  const status = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return status === undefined || status >= 500;
}

export async function ensureBucketAtStart(objects: ObjectStore, log: (line: string) => void, waitMs = BUCKET_WAIT_MS): Promise<void> {
  const deadline = Date.now() + waitMs;
  let pause = FIRST_PAUSE_MS;
  let said = false;
  for (;;) {
    try {
      await objects.ensureBucket();
      if (said) log('Nimbus: the bucket answers now; starting.');
      return;
    } catch (err) {
      if (!mayPassLater(err) || Date.now() + pause > deadline) throw err;
      if (!said)
        log(`Nimbus: the bucket does not answer yet (${(err as Error).message}); trying again for up to ${Math.round(waitMs / 1000)} s.`);
      said = true;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
