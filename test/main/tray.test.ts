import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('./fakeElectron.js'));

const electron = await import('./fakeElectron.js');
const { buildTrayMenuTemplate, setupTray, wordTray } = await import('../../main/tray.js');
const { createShellActions } = await import('../../main/actions.js');

const daemon = {
  url: 'http://127.0.0.1:7878',
  storageDir: '/home/ana/.local/share/nimbus/storage',
  logDir: '/home/ana/.local/share/nimbus/logs',
  adminKey: () => 'secret-admin-key',
};

function trayActions() {
  return { openWindow: vi.fn(), openStorageFolder: vi.fn(), openLogFolder: vi.fn(), copyApiKey: vi.fn(), quit: vi.fn() };
}

beforeEach(() => {
  vi.clearAllMocks();
  electron.Tray.instances.length = 0;
});

describe('tray menu', () => {
  it('offers Open Nimbus, Open storage folder, Open log folder, Copy API key and Quit, in that order', () => {
    const labels = buildTrayMenuTemplate(trayActions())
      .filter((item) => item.type !== 'separator')
      .map((item) => item.label);
    expect(labels).toEqual(['Open Nimbus', 'Open storage folder', 'Open log folder', 'Copy API key', 'Quit']);
  });

  it('separates Quit from the other items', () => {
    const template = buildTrayMenuTemplate(trayActions());
    expect(template.at(-2)?.type).toBe('separator');
    expect(template.at(-1)?.label).toBe('Quit');
  });

  it.each([
    ['Open Nimbus', 'openWindow'],
    ['Open storage folder', 'openStorageFolder'],
    ['Open log folder', 'openLogFolder'],
    ['Copy API key', 'copyApiKey'],
    ['Quit', 'quit'],
  ] as const)('"%s" runs %s and nothing else', (label, action) => {
    const actions = trayActions();
    setupTray(actions, daemon.url, 'linux');
    electron.Tray.instances[0].contextMenu!.click(label);
    for (const [name, fn] of Object.entries(actions)) expect(fn, name).toHaveBeenCalledTimes(name === action ? 1 : 0);
  });
});

describe('setupTray', () => {
  it('says it again in the explorer’s language when told, and the items still do the same', () => {
    const actions = trayActions();
    const tray = setupTray(actions, daemon.url, 'linux', 'en-US');
    wordTray(tray, actions, daemon.url, 'cs');
    const menu = electron.Tray.instances[0].contextMenu!;
    expect(menu.template.map((item) => item.label)).toContain('Otevřít Nimbus');
    menu.click('Otevřít Nimbus');
    expect(actions.openWindow).toHaveBeenCalledTimes(1);
  });

  it('shows the daemon address in the tooltip', () => {
    setupTray(trayActions(), daemon.url, 'linux');
    expect(electron.Tray.instances[0].toolTip).toContain('http://127.0.0.1:7878');
  });

  it('opens the window on a click on Linux and Windows', () => {
    const actions = trayActions();
    setupTray(actions, daemon.url, 'win32');
    electron.Tray.instances[0].emit('click');
    expect(actions.openWindow).toHaveBeenCalledOnce();
  });

  it('uses a template image on macOS and the coloured icon elsewhere', () => {
    setupTray(trayActions(), daemon.url, 'darwin');
    setupTray(trayActions(), daemon.url, 'linux');
    const [mac, linux] = electron.Tray.instances.map((t) => t.image as { template: boolean; representations: unknown[] });
    expect(mac.template).toBe(true);
    expect(mac.representations).toHaveLength(1);
    expect(linux.template).toBe(false);
  });

  it('embeds real PNG images', () => {
    setupTray(trayActions(), daemon.url, 'linux');
    const image = electron.Tray.instances[0].image as { buffer: Buffer };
    expect(image.buffer.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });
});

describe('shell actions behind the tray and menu', () => {
  it('Copy API key puts the admin key on the clipboard', () => {
    createShellActions(daemon, vi.fn()).copyApiKey();
    expect(electron.clipboard.writeText).toHaveBeenCalledWith('secret-admin-key');
  });

  it('Open storage folder opens the daemon’s storage directory', () => {
    createShellActions(daemon, vi.fn()).openStorageFolder();
    expect(electron.shell.openPath).toHaveBeenCalledWith(daemon.storageDir);
  });

  it('Open log folder opens the daemon’s log folder', () => {
    createShellActions(daemon, vi.fn()).openLogFolder();
    expect(electron.shell.openPath).toHaveBeenCalledWith(daemon.logDir);
  });

  it('says in the log when the file manager cannot open a folder', async () => {
    electron.shell.openPath.mockResolvedValueOnce('No application is registered');
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    createShellActions(daemon, vi.fn()).openLogFolder();
    await vi.waitFor(() => expect(error).toHaveBeenCalledWith(`Nimbus: could not open ${daemon.logDir}: No application is registered`));
    error.mockRestore();
  });

  it('Open Nimbus shows the window', () => {
    const show = vi.fn();
    createShellActions(daemon, show).openWindow();
    expect(show).toHaveBeenCalledOnce();
  });

  it('Quit quits the app (which stops the daemon on will-quit)', () => {
    createShellActions(daemon, vi.fn()).quit();
    expect(electron.app.quit).toHaveBeenCalledOnce();
  });

  it('Open in Browser opens the daemon origin without the key', () => {
    createShellActions(daemon, vi.fn()).openInBrowser();
    expect(electron.shell.openExternal).toHaveBeenCalledWith('http://127.0.0.1:7878/');
  });

  it('wires the real tray menu to these actions', () => {
    setupTray(createShellActions(daemon, vi.fn()), daemon.url, 'linux');
    electron.Tray.instances[0].contextMenu!.click('Copy API key');
    expect(electron.clipboard.writeText).toHaveBeenCalledWith('secret-admin-key');
  });
});
