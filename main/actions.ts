import { app, clipboard, shell } from 'electron';
import type { RunningDaemon } from '../daemon/index.js';
import type { AppMenuActions } from './menu.js';
import type { TrayActions } from './tray.js';

/** The commands shared by the tray and the application menu. */
export type ShellActions = TrayActions & AppMenuActions;

export function createShellActions(daemon: Pick<RunningDaemon, 'url' | 'storageDir' | 'adminKey'>, showWindow: () => void): ShellActions {
  return {
    openWindow: showWindow,
    openStorageFolder: () => {
      void shell.openPath(daemon.storageDir).then((error) => {
        if (error) console.error(`Nimbus: could not open ${daemon.storageDir}: ${error}`);
      });
    },
    copyApiKey: () => clipboard.writeText(daemon.adminKey()),
    openInBrowser: () => void shell.openExternal(`${new URL(daemon.url).origin}/`),
    quit: () => app.quit(),
  };
}
