import { readFileSync } from 'node:fs';
import { checkStorage } from '../availability.js';

/** How often directories are polled once the OS watch limit is reached. */
export const FALLBACK_POLL_MS = 2000;
/** The longest time between two reconciles while polling. */
export const FALLBACK_RECONCILE_MS = 60_000;
/** How often a storage directory that went away is looked for. */
export const RECOVERY_CHECK_MS = 2000;

/** Calls `fn` every `ms` (not keeping the process alive); returns the stop. */
export function every(ms: number, fn: () => void): () => void {
  const timer = setInterval(fn, ms);
  timer.unref();
  return () => clearInterval(timer);
}

/** Looks every RECOVERY_CHECK_MS for a storage directory that went away (its marker back); calls `back` once. Returns the stop. */
export function waitForStorage(storageDir: string, back: () => void): () => void {
  let waiting = true;
  const stopTimer = every(RECOVERY_CHECK_MS, () => {
    void checkStorage(storageDir).then((status) => {
      if (!status.ok || !waiting) return;
      stop();
      back();
    });
  });
  const stop = () => {
    waiting = false;
    stopTimer();
  };
  return stop;
}

/** How often to reconcile while polling: the configured interval, at most FALLBACK_RECONCILE_MS. */
export function fallbackReconcileMs(reconcileIntervalMs: number): number {
  return Math.min(FALLBACK_RECONCILE_MS, reconcileIntervalMs || FALLBACK_RECONCILE_MS);
}

/** The one line said when the watch fails: which limit, its value, how to raise it. */
export function limitMessage(code: string, pollMs: number = FALLBACK_POLL_MS, readLimit = readProcLimit): string {
  const fallback = `Falling back to polling the storage directory every ${pollMs / 1000} s (changes show up more slowly).`;
  if (code === 'ENOSPC') {
    const limit = readLimit('/proc/sys/fs/inotify/max_user_watches');
    return `Nimbus: cannot watch the storage directory: the inotify watch limit is reached (ENOSPC, fs.inotify.max_user_watches = ${limit}). ${fallback} Raise it with "sudo sysctl fs.inotify.max_user_watches=524288" (and add that line to /etc/sysctl.conf), then restart Nimbus.`;
  }
  const instances = readLimit('/proc/sys/fs/inotify/max_user_instances');
  return `Nimbus: cannot watch the storage directory: too many open files (${code}; see "ulimit -n", fs.inotify.max_user_instances = ${instances}). ${fallback} Raise the limit (ulimit -n 65536, or LimitNOFILE= in a systemd unit), then restart Nimbus.`;
}

function readProcLimit(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/** Logs a watcher error once per errno code; ENOENT and ENOTDIR (a name gone between two reads) never: the parent directory reports it. */
export function logOncePerCode(storageDir: string, log: (line: string) => void): (err: unknown) => void {
  const logged = new Set<string>();
  return (err) => {
    const code = (err as NodeJS.ErrnoException | null)?.code ?? 'error';
    if (code === 'ENOENT' || code === 'ENOTDIR' || logged.has(code)) return;
    logged.add(code);
    log(
      `Nimbus: watching ${storageDir} failed (${code}): ${(err as Error | null)?.message ?? String(err)}; the periodic reconcile will repair the index.`,
    );
  };
}
