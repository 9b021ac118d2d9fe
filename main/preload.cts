/**
 * The preload: runs sandboxed before the page and exposes `window.nimbus`, exactly the
 * `NimbusBridge` of shared/ipc.ts, each method one IPC call. `ipcRenderer` itself never
 * reaches the page.
 *
 * This is a .cts file: sandboxed preloads must be CommonJS and may `require` only
 * 'electron' (no relative files), so tsc emits it as dist/main/preload.cjs and it
 * imports shared/ for types only. `CHANNELS` repeats IPC_CHANNELS' values; its type is
 * `typeof IPC_CHANNELS` (literal strings), so a drift is a compile error.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { IPC_CHANNELS, NimbusBridge } from '../shared/ipc.js';

const CHANNELS: typeof IPC_CHANNELS = {
  getConnection: 'nimbus:get-connection',
  revealFile: 'nimbus:reveal-file',
  openExternal: 'nimbus:open-external',
  openStorageFolder: 'nimbus:open-storage-folder',
  setLanguage: 'nimbus:set-language',
  setTheme: 'nimbus:set-theme',
};

const bridge: NimbusBridge = {
  getConnection: () => ipcRenderer.invoke(CHANNELS.getConnection),
  revealFile: (username, folder, file) => ipcRenderer.invoke(CHANNELS.revealFile, username, folder, file),
  openExternal: (url) => ipcRenderer.invoke(CHANNELS.openExternal, url),
  openStorageFolder: () => ipcRenderer.invoke(CHANNELS.openStorageFolder),
  setLanguage: (language) => ipcRenderer.invoke(CHANNELS.setLanguage, language),
  setTheme: (theme) => ipcRenderer.invoke(CHANNELS.setTheme, theme),
  platform: process.platform,
};

contextBridge.exposeInMainWorld('nimbus', bridge);
