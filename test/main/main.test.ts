/**
 * main.ts end to end with `electron` replaced: the real daemon starts in this process,
 * and the window, IPC, tray, menu, session and quit path are wired to it.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC_CHANNELS } from '../../shared/ipc.js';
import { TEST_KEY } from '../helpers/daemon.js';

vi.mock('electron', () => import('./fakeElectron.js'));

const electron = await import('./fakeElectron.js');
let appData: string;
let dataDir: string;

beforeAll(async () => {
  appData = await mkdtemp(join(tmpdir(), 'nimbus-appdata-'));
  dataDir = join(appData, 'data');
  await mkdir(join(appData, 'Nimbus', 'Desktop'), { recursive: true });
  await writeFile(join(appData, 'Nimbus', 'Desktop', 'settings.json'), JSON.stringify({ port: 0, dataDir }));
  vi.stubEnv('NIMBUS_API_KEY', TEST_KEY);
  vi.stubEnv('NIMBUS_KEYCHAIN', 'off');
  electron.app.setPath('appData', appData);
  await import('../../main/main.js');
  await vi.waitFor(() => expect(electron.BrowserWindow.instances).toHaveLength(1), { timeout: 20_000 });
});

afterAll(async () => {
  // Quit as a user would, so the daemon releases its lock before the directory goes.
  let prevented = false;
  electron.app.emit('will-quit', { preventDefault: () => (prevented = true) });
  expect(prevented).toBe(true);
  await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalled(), { timeout: 10_000 });
  await expect(stat(join(dataDir, 'nimbus.lock'))).rejects.toThrow(/ENOENT/);
  vi.unstubAllEnvs();
  await rm(appData, { recursive: true, force: true });
});

const firstWindow = () => electron.BrowserWindow.instances[0];
const daemonUrl = () => firstWindow().loadedUrl!;

describe('main.ts', () => {
  it('keeps its profile in <appData>/Nimbus/Desktop and holds the single-instance lock', () => {
    expect(electron.app.setPath).toHaveBeenCalledWith('userData', join(appData, 'Nimbus', 'Desktop'));
    expect(electron.app.requestSingleInstanceLock).toHaveBeenCalled();
  });

  it('starts the real daemon on 127.0.0.1 with the settings’ port and data directory', async () => {
    expect(daemonUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${daemonUrl()}/api/dash`, { headers: { 'API-Key': TEST_KEY } });
    expect(res.status).toBe(200);
    await expect(readFile(join(dataDir, 'nimbus.lock'), 'utf8')).resolves.toContain(String(process.pid));
  });

  it('opens a sandboxed window with the CommonJS preload', () => {
    expect(firstWindow().options.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false });
    expect(firstWindow().options.webPreferences?.preload).toMatch(/main[\\/]preload\.cjs$/);
  });

  it('registers every bridge channel, answering the window with the daemon’s URL and key', async () => {
    const handlers = new Map(electron.ipcMain.handle.mock.calls as [string, (...a: unknown[]) => unknown][]);
    expect([...handlers.keys()].sort()).toEqual(Object.values(IPC_CHANNELS).sort());
    const connection = await handlers.get(IPC_CHANNELS.getConnection)!({ senderFrame: { url: `${daemonUrl()}/`, parent: null } });
    expect(connection).toEqual({ baseUrl: daemonUrl(), apiKey: TEST_KEY });
    expect(() => handlers.get(IPC_CHANNELS.getConnection)!({ senderFrame: { url: 'https://example.com/', parent: null } })).toThrow();
  });

  it('puts Nimbus in the tray, with Copy API key giving the daemon’s key', () => {
    expect(electron.Tray.instances).toHaveLength(1);
    electron.Tray.instances[0].contextMenu!.click('Copy API key');
    expect(electron.clipboard.writeText).toHaveBeenCalledWith(TEST_KEY);
  });

  it('logs into <data-dir>/logs/nimbus.log: the daemon’s start, its requests, and the shell’s own lines', async () => {
    const logDir = join(dataDir, 'logs');
    electron.shell.openPath.mockResolvedValueOnce('no file manager');
    electron.Tray.instances[0].contextMenu!.click('Open log folder');
    expect(electron.shell.openPath).toHaveBeenCalledWith(logDir);
    await fetch(`${daemonUrl()}/api/dash`, { headers: { 'API-Key': TEST_KEY } });
    await vi.waitFor(async () => {
      const lines = (await readFile(join(logDir, 'nimbus.log'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toContainEqual(expect.objectContaining({ level: 'info', msg: expect.stringMatching(/^Nimbus \S+ started on http/) }));
      expect(lines).toContainEqual(expect.objectContaining({ method: 'GET', url: '/api/dash', status: 200 }));
      expect(lines).toContainEqual(
        expect.objectContaining({ src: 'desktop', level: 'error', msg: `Nimbus: could not open ${logDir}: no file manager` }),
      );
    });
  });

  it('keeps the daemon running when the window is closed, and reopens from the tray', async () => {
    firstWindow().close();
    electron.app.emit('window-all-closed');
    expect(electron.app.quit).not.toHaveBeenCalled();
    expect((await fetch(`${daemonUrl()}/api/dash`, { headers: { 'API-Key': TEST_KEY } })).status).toBe(200);
    electron.Tray.instances[0].contextMenu!.click('Open Nimbus');
    expect(electron.BrowserWindow.instances).toHaveLength(2);
    expect(electron.BrowserWindow.instances[1].loadedUrl).toBe(daemonUrl());
  });

  it('installs the application menu and the session’s CSP and permission handlers', () => {
    expect(electron.Menu.setApplicationMenu).toHaveBeenCalledOnce();
    expect(electron.session.defaultSession.webRequest.onHeadersReceived).toHaveBeenCalledOnce();
    expect(electron.session.defaultSession.setPermissionRequestHandler).toHaveBeenCalledOnce();
  });

  it('adds the daemon’s key to the window’s plain requests to its own daemon, so a bare link downloads', async () => {
    const [[filter, listener]] = electron.session.defaultSession.webRequest.onBeforeSendHeaders.mock.calls;
    expect(filter).toEqual({ urls: [`${daemonUrl()}/*`] });
    const url = `${daemonUrl()}/api/folders/download?username=nobody`;
    let requestHeaders: Record<string, string> = {};
    listener({ url, requestHeaders: {} }, (answer: { requestHeaders: Record<string, string> }) => (requestHeaders = answer.requestHeaders));
    expect(requestHeaders).toEqual({ 'API-Key': TEST_KEY });
    // With the header the link is the admin's: past authorization, to the row's own 404.
    expect((await fetch(url, { headers: requestHeaders })).status).toBe(404);
    expect((await fetch(url)).status).toBe(401);
  });

  it('focuses the window when Nimbus is launched again', () => {
    const before = electron.BrowserWindow.instances.length;
    electron.app.emit('second-instance', {}, [], '/');
    expect(electron.BrowserWindow.instances).toHaveLength(before);
  });
});
