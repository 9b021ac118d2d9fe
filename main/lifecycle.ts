import type { App } from 'electron';
import { shellLog } from './log.js';

type AppEvents = Pick<App, 'on' | 'quit' | 'requestSingleInstanceLock'>;

/**
 * Makes this the only running Nimbus: returns false when another instance holds the
 * lock (that one is told to show itself; this one should quit at once).
 */
export function setupSingleInstance(app: AppEvents, showExisting: () => void): boolean {
  if (!app.requestSingleInstanceLock()) return false;
  app.on('second-instance', () => showExisting());
  return true;
}

/**
 * Closing the last window leaves Nimbus running in the tray; quitting (tray, menu,
 * Cmd+Q, OS logout) first lets the daemon finish its writes and release its lock,
 * waiting at most `timeoutMs`.
 */
export function setupQuit(app: AppEvents, closeDaemon: () => Promise<void>, timeoutMs = 10_000): void {
  // A listener here replaces Electron's default of quitting when no window is left.
  app.on('window-all-closed', () => undefined);
  let daemonClosed = false;
  let closing = false;
  app.on('will-quit', (event) => {
    if (daemonClosed) return;
    event.preventDefault();
    if (closing) return;
    closing = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        shellLog.error(`Nimbus: the daemon did not stop within ${timeoutMs / 1000} s; quitting anyway.`);
        resolve();
      }, timeoutMs);
    });
    Promise.race([closeDaemon(), timeout])
      .catch((err: unknown) => shellLog.error(`Nimbus: error while stopping the daemon: ${(err as Error).message}`))
      .finally(() => {
        clearTimeout(timer);
        daemonClosed = true;
        app.quit();
      });
  });
}
