import { app, clipboard, shell } from 'electron';
import type { RunningDaemon } from '../daemon/index.js';
import type { AppMenuActions } from './menu.js';
import { shellLog } from './log.js';
import type { TrayActions } from './tray.js';

/** The commands shared by the tray and the application menu. */
export type ShellActions = TrayActions & AppMenuActions;

/** Opens a folder in the file manager; Electron reports failure as a message, not a rejection. */
function openFolder(folder: string): void {
  void shell.openPath(folder).then((error) => {
    if (error) shellLog.error(`Nimbus: could not open ${folder}: ${error}`);
  });
}

export function createShellActions(
  daemon: Pick<RunningDaemon, 'url' | 'storageDir' | 'logDir' | 'adminKey'>,
  showWindow: () => void,
): ShellActions {
  return {
    openWindow: showWindow,
    openStorageFolder: () => openFolder(daemon.storageDir),
    openLogFolder: () => openFolder(daemon.logDir),
    copyApiKey: () => clipboard.writeText(daemon.adminKey()),
    openInBrowser: () => void shell.openExternal(`${new URL(daemon.url).origin}/`),
    quit: () => app.quit(),
  };
}
