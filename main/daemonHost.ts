import type { DaemonOptions, RunningDaemon } from '../daemon/index.js';

export type StartDaemon = (options: DaemonOptions) => Promise<RunningDaemon>;

export const DEFAULT_PORT = 7878;

function isAddressInUse(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === 'EADDRINUSE' || (typeof e?.message === 'string' && e.message.includes('EADDRINUSE'));
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
