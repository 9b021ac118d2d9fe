/**
 * The Electron main process: a short list of setup steps, one per feature module.
 * The daemon runs in this process; the window is a view on it that can come and go.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, dialog, ipcMain, nativeTheme, session, shell } from 'electron';
import { startDaemon, type RunningDaemon } from '../daemon/index.js';
import { createShellActions } from './actions.js';
import { startDaemonWithFallback } from './daemonHost.js';
import { setupDaemonKey } from './daemonKey.js';
import { registerIpcHandlers } from './ipc.js';
import { setupQuit, setupSingleInstance } from './lifecycle.js';
import { shellLog, useLogger } from './log.js';
import { setupAppMenu } from './menu.js';
import { menuWords } from './menu-words.js';
import { setupSessionSecurity } from './security.js';
import { loadSettings } from './settings.js';
import { setupTray, wordTray } from './tray.js';
import { MainWindow } from './window.js';
import { windowStateFile } from './windowState.js';

const preloadPath = fileURLToPath(new URL('./preload.cjs', import.meta.url));
let mainWindow: MainWindow | null = null;
// Held for the app's lifetime: a collected Tray disappears from the panel.
let tray: Electron.Tray | null = null;

/** Starts the daemon from the settings; from then on the shell logs into the daemon's log file. */
async function setupDaemon(): Promise<RunningDaemon> {
  // Said before the log file is open (its data directory comes from these settings): written to it once it is.
  const early: string[] = [];
  const { port, dataDir, storageDir } = loadSettings(app.getPath('userData'), (line) => early.push(line));
  const options = {
    host: '127.0.0.1',
    ...(port !== undefined && { port }),
    ...(dataDir && { dataDir }),
    ...(storageDir && { storageDir }),
  };
  let daemon: RunningDaemon;
  try {
    daemon = await startDaemonWithFallback(startDaemon, options, (line) => early.push(line));
  } catch (err) {
    for (const line of early) shellLog.warn(line);
    throw err;
  }
  useLogger(daemon.logger);
  for (const line of early) shellLog.warn(line);
  return daemon;
}

function setupMainProcess(daemon: RunningDaemon): void {
  const actions = createShellActions(daemon, () => mainWindow?.show());
  setupSessionSecurity(session.defaultSession, daemon.url);
  setupDaemonKey(session.defaultSession, daemon.url, () => daemon.adminKey());
  registerIpcHandlers(ipcMain, {
    daemonUrl: daemon.url,
    storageDir: daemon.storageDir,
    adminKey: () => daemon.adminKey(),
    showItemInFolder: (fullPath) => shell.showItemInFolder(fullPath),
    openPath: (fullPath) => shell.openPath(fullPath),
    openExternal: (url) => shell.openExternal(url),
    // The explorer's language, once it names one, wins over the system's for the menus and the tray.
    setLanguage: (language) => {
      setupAppMenu(actions, process.platform, language);
      if (tray) wordTray(tray, actions, daemon.url, language);
    },
    setTheme: (theme) => {
      nativeTheme.themeSource = theme;
    },
  });
  mainWindow = new MainWindow({
    daemonUrl: daemon.url,
    preloadPath,
    stateFile: windowStateFile(app.getPath('userData')),
    openExternal: (url) => shell.openExternal(url),
  });
  tray = setupTray(actions, daemon.url);
  // Windows leaves a dead icon in the notification area until hovered unless it is removed.
  app.on('quit', () => tray?.destroy());
  setupAppMenu(actions);
  setupQuit(app, () => daemon.close().finally(() => useLogger(null)));
  app.on('activate', () => mainWindow?.show());
  mainWindow.show();
}

async function main(): Promise<void> {
  // One profile directory whatever the launch (npm start or the packaged app). On macOS
  // and Windows <appData>/Nimbus is also the daemon's default data directory: Chromium's
  // profile (caches, cookies) goes to a subfolder of its own, next to the user's data.
  app.setName('Nimbus');
  app.setPath('userData', join(app.getPath('appData'), 'Nimbus', 'Desktop'));
  if (!setupSingleInstance(app, () => mainWindow?.show())) {
    app.quit();
    return;
  }
  await app.whenReady();
  let daemon: RunningDaemon;
  try {
    daemon = await setupDaemon();
  } catch (err) {
    dialog.showErrorBox(menuWords(app.getLocale()).couldNotStart, (err as Error).message);
    app.exit(1);
    return;
  }
  setupMainProcess(daemon);
}

main().catch((err: unknown) => {
  shellLog.error(`Nimbus: ${(err as Error)?.stack ?? String(err)}`);
  app.exit(1);
});
