import type { DaemonOptions, RunningDaemon } from '../daemon/index.js';

export type StartDaemon = (options: DaemonOptions) => Promise<RunningDaemon>;

export const DEFAULT_PORT = 7878;

/**
 * The daemon turns EADDRINUSE into a sentence for people ("Port 7878 on 127.0.0.1 is
 * already in use: …"); accept that, the raw code, or the code on its cause.
 */
export function isAddressInUse(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | null;
  if (e?.code === 'EADDRINUSE' || e?.cause?.code === 'EADDRINUSE') return true;
  return typeof e?.message === 'string' && /EADDRINUSE|already in use/.test(e.message);
}

/**
 * Starts the daemon on the requested port; when that port is taken by another program,
 * starts it on a free port instead (the window and the printed URL follow the daemon,
 * so nothing depends on the number). Every other failure is rethrown.
 */
export async function startDaemonWithFallback(
  start: StartDaemon,
  options: DaemonOptions,
  log: (line: string) => void,
): Promise<RunningDaemon> {
  try {
    return await start(options);
  } catch (err) {
    if (options.port === 0 || !isAddressInUse(err)) throw err;
    const daemon = await start({ ...options, port: 0 });
    log(`Port ${options.port ?? DEFAULT_PORT} is in use; Nimbus is listening on port ${daemon.port} instead.`);
    return daemon;
  }
}
