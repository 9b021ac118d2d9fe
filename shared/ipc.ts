/**
 * The contract between the Electron main process and the renderer. The preload
 * exposes exactly `NimbusBridge` as `window.nimbus`; the renderer declares the global
 * from this interface, so the two cannot drift.
 */

export const IPC_CHANNELS = {
  getConnection: 'nimbus:get-connection',
  revealFile: 'nimbus:reveal-file',
  openExternal: 'nimbus:open-external',
  openStorageFolder: 'nimbus:open-storage-folder',
  setLanguage: 'nimbus:set-language',
  setTheme: 'nimbus:set-theme',
} as const;

export type IpcChannel = (typeof IPC_CHANNELS)[keyof typeof IPC_CHANNELS];

export interface DaemonConnection {
  /** e.g. http://127.0.0.1:7878 */
  baseUrl: string;
  apiKey: string;
}

export interface NimbusBridge {
  /** Where the daemon listens and the key to call it with. */
  getConnection(): Promise<DaemonConnection>;
  /** Shows a user's file in the OS file manager. */
  revealFile(username: string, folder: string | null, file: string): Promise<void>;
  /** Opens an http(s) URL in the default browser; other schemes are refused. */
  openExternal(url: string): Promise<void>;
  openStorageFolder(): Promise<void>;
  /** The explorer's language (one of shared/languages.ts), for the menus and the tray, which otherwise follow the OS. */
  setLanguage(language: string): Promise<void>;
  /** The explorer's theme (system, light or dark), for the window's frame and first paint, which otherwise follow the OS. */
  setTheme(theme: string): Promise<void>;
  platform: string;
}
