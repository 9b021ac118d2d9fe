import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { IPC_CHANNELS, type DaemonConnection, type IpcChannel } from '../shared/ipc.js';
import { UI_LANGUAGES, type UiLanguage } from '../shared/languages.js';
import { checkAccountName, checkFileName } from '../shared/validation.js';
import { isSameOrigin, isWebUrl } from './navigation.js';

/** A rejected IPC call; its message reaches the renderer (Electron prefixes it). */
export class IpcError extends Error {
  override name = 'IpcError';
}

/** What the IPC handlers act on: the running daemon and the OS shell. */
export interface IpcDeps {
  daemonUrl: string;
  storageDir: string;
  adminKey(): string;
  showItemInFolder(fullPath: string): void;
  openPath(fullPath: string): Promise<string>;
  openExternal(url: string): Promise<void>;
  /** Words the menus and the tray in the explorer's language. */
  setLanguage(language: UiLanguage): void;
  /** Electron's own theme (nativeTheme.themeSource): the window's frame and its first paint follow the explorer's choice. */
  setTheme(theme: ShellTheme): void;
}

const SHELL_THEMES = ['system', 'light', 'dark'] as const;
export type ShellTheme = (typeof SHELL_THEMES)[number];

type Sender = { senderFrame: Pick<NonNullable<IpcMainInvokeEvent['senderFrame']>, 'url' | 'parent'> | null };

/** Paths the daemon serves to anyone (shared-file links, the verification page) or as data: never the UI. */
const NON_UI_PATH = /^\/(api|s|verify)(\/|$)/;

/**
 * Only the Nimbus UI may call the bridge: the top frame of a page on the daemon's
 * origin, outside its public and API paths (defence in depth: those serve downloads
 * and static pages, which have no use for the bridge).
 */
export function assertTrustedSender(event: Sender, daemonUrl: string): void {
  const frame = event.senderFrame;
  let trusted = false;
  if (frame && frame.parent === null && isSameOrigin(frame.url, new URL(daemonUrl).origin)) {
    trusted = !NON_UI_PATH.test(new URL(frame.url).pathname);
  }
  if (!trusted) throw new IpcError('Refused: the request did not come from the Nimbus window');
}

function assertArgCount(args: unknown[], count: number): void {
  if (args.length !== count) throw new IpcError(`Expected ${count} argument(s), got ${args.length}`);
}

function checked(what: string, raw: unknown, check: (s: string) => { ok: true; value: string } | { ok: false; message: string }): string {
  if (typeof raw !== 'string') throw new IpcError(`${what} must be a string`);
  const result = check(raw);
  if (!result.ok) throw new IpcError(`${what} ${result.message}`);
  return result.value;
}

/**
 * The full path of a user's file, from names checked one by one (no separators, no
 * "..", no reserved names), and verified to stay under the storage directory.
 */
export function resolveUserFile(storageDir: string, username: unknown, folder: unknown, file: unknown): string {
  const user = checked('username', username, checkAccountName);
  if (folder !== null && typeof folder !== 'string') throw new IpcError('folder must be a string or null');
  const dir = folder === null ? null : checked('folder', folder, checkFileName);
  const name = checked('file', file, checkFileName);
  const fullPath = dir === null ? join(storageDir, user, name) : join(storageDir, user, dir, name);
  const rel = relative(storageDir, fullPath);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new IpcError('Path is outside the storage folder');
  return fullPath;
}

export function checkExternalUrl(url: unknown): string {
  if (typeof url !== 'string' || url.length > 2048 || !isWebUrl(url)) {
    throw new IpcError('Only http(s) URLs can be opened');
  }
  return url;
}

type Handler = (...args: unknown[]) => unknown;

/** The bridge's implementation, one function per channel, arguments unchecked as received. */
export function createIpcHandlers(deps: IpcDeps): Record<IpcChannel, Handler> {
  return {
    [IPC_CHANNELS.getConnection]: (...args): DaemonConnection => {
      assertArgCount(args, 0);
      return { baseUrl: deps.daemonUrl, apiKey: deps.adminKey() };
    },
    [IPC_CHANNELS.revealFile]: (...args) => {
      assertArgCount(args, 3);
      const fullPath = resolveUserFile(deps.storageDir, args[0], args[1], args[2]);
      if (!existsSync(fullPath)) throw new IpcError('File not found');
      deps.showItemInFolder(fullPath);
    },
    [IPC_CHANNELS.openExternal]: async (...args) => {
      assertArgCount(args, 1);
      await deps.openExternal(checkExternalUrl(args[0]));
    },
    [IPC_CHANNELS.openStorageFolder]: async (...args) => {
      assertArgCount(args, 0);
      const error = await deps.openPath(deps.storageDir);
      if (error) throw new IpcError(`Could not open the storage folder: ${error}`);
    },
    [IPC_CHANNELS.setLanguage]: (...args) => {
      assertArgCount(args, 1);
      const language = args[0];
      if (typeof language !== 'string' || !(UI_LANGUAGES as readonly string[]).includes(language))
        throw new IpcError(`language must be one of ${UI_LANGUAGES.join(', ')}`);
      deps.setLanguage(language as UiLanguage);
    },
    [IPC_CHANNELS.setTheme]: (...args) => {
      assertArgCount(args, 1);
      const theme = args[0];
      if (typeof theme !== 'string' || !(SHELL_THEMES as readonly string[]).includes(theme))
        throw new IpcError(`theme must be one of ${SHELL_THEMES.join(', ')}`);
      deps.setTheme(theme as ShellTheme);
    },
  };
}

/** Registers every bridge channel, each behind the sender check. */
export function registerIpcHandlers(ipcMain: Pick<IpcMain, 'handle'>, deps: IpcDeps): void {
  for (const [channel, handler] of Object.entries(createIpcHandlers(deps))) {
    ipcMain.handle(channel, (event, ...args: unknown[]) => {
      assertTrustedSender(event, deps.daemonUrl);
      return handler(...args);
    });
  }
}
