import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IPC_CHANNELS } from '../../shared/ipc.js';
import { registerIpcHandlers, resolveUserFile, type IpcDeps } from '../../main/ipc.js';

const DAEMON_URL = 'http://127.0.0.1:7878';
const FROM_WINDOW = { senderFrame: { url: `${DAEMON_URL}/#/users/ana`, parent: null } };

let storageDir: string;
type Mocked<F extends (...args: never[]) => unknown> = ReturnType<typeof vi.fn<F>>;
let deps: IpcDeps & {
  showItemInFolder: Mocked<IpcDeps['showItemInFolder']>;
  openPath: Mocked<IpcDeps['openPath']>;
  openExternal: Mocked<IpcDeps['openExternal']>;
  setLanguage: Mocked<IpcDeps['setLanguage']>;
  setTheme: Mocked<IpcDeps['setTheme']>;
};
let handlers: Map<string, (event: unknown, ...args: unknown[]) => unknown>;

/** Calls a channel the way ipcMain would, with the given sender. */
async function invoke(channel: string, event: unknown, ...args: unknown[]): Promise<unknown> {
  const handler = handlers.get(channel);
  if (!handler) throw new Error(`no handler for ${channel}`);
  return handler(event, ...args);
}

beforeEach(() => {
  storageDir = mkdtempSync(join(tmpdir(), 'nimbus-ipc-'));
  mkdirSync(join(storageDir, 'ana', 'Photos'), { recursive: true });
  writeFileSync(join(storageDir, 'ana', 'notes.txt'), 'hi');
  writeFileSync(join(storageDir, 'ana', 'Photos', 'cat.jpg'), 'jpg');
  deps = {
    daemonUrl: DAEMON_URL,
    storageDir,
    adminKey: () => 'the-admin-key',
    showItemInFolder: vi.fn<IpcDeps['showItemInFolder']>(),
    openPath: vi.fn<IpcDeps['openPath']>(async () => ''),
    openExternal: vi.fn<IpcDeps['openExternal']>(async () => undefined),
    setLanguage: vi.fn<IpcDeps['setLanguage']>(),
    setTheme: vi.fn<IpcDeps['setTheme']>(),
  };
  handlers = new Map();
  registerIpcHandlers({ handle: (channel: string, handler: never) => handlers.set(channel, handler) } as never, deps);
});

afterEach(() => rmSync(storageDir, { recursive: true, force: true }));

describe('registerIpcHandlers', () => {
  it('handles exactly the channels of shared/ipc.ts', () => {
    expect([...handlers.keys()].sort()).toEqual(Object.values(IPC_CHANNELS).sort());
  });
});

describe('sender check', () => {
  const strangers = [
    ['another port', 'http://127.0.0.1:7879/'],
    ['another host name', 'http://localhost:7878/'],
    ['a web site', 'https://example.com/'],
    ['a file page', 'file:///tmp/evil.html'],
    ['a data URL', 'data:text/html,<script>1</script>'],
    ['an empty URL', ''],
    ['a shared-file link on the daemon', `${DAEMON_URL}/s/abcdefghijklmnopqrstuv`],
    ['the verification page', `${DAEMON_URL}/verify?token=abcdefghijklmnop`],
    ['an API response', `${DAEMON_URL}/api/files/download?username=ana&file=x.html`],
  ] as const;

  for (const channel of Object.values(IPC_CHANNELS)) {
    it.each(strangers)(`refuses ${channel} from %s`, async (_what, url) => {
      await expect(invoke(channel, { senderFrame: { url, parent: null } })).rejects.toThrow(/did not come from the Nimbus window/);
    });

    it(`refuses ${channel} from a sub-frame, even on the daemon origin`, async () => {
      await expect(invoke(channel, { senderFrame: { url: `${DAEMON_URL}/`, parent: {} } })).rejects.toThrow(
        /did not come from the Nimbus window/,
      );
    });

    it(`refuses ${channel} when the sending frame is gone`, async () => {
      await expect(invoke(channel, { senderFrame: null })).rejects.toThrow(/did not come from the Nimbus window/);
    });
  }

  it('accepts the UI at any of its own paths', async () => {
    for (const url of [`${DAEMON_URL}/`, `${DAEMON_URL}/users/ana?sort=name`, `${DAEMON_URL}/#/roles`, `${DAEMON_URL}/index.html`]) {
      await expect(invoke(IPC_CHANNELS.getConnection, { senderFrame: { url, parent: null } }), url).resolves.toMatchObject({
        baseUrl: DAEMON_URL,
      });
    }
  });

  it('does nothing for a refused sender', async () => {
    await expect(
      invoke(IPC_CHANNELS.revealFile, { senderFrame: { url: 'https://example.com/', parent: null } }, 'ana', null, 'notes.txt'),
    ).rejects.toThrow();
    await expect(
      invoke(IPC_CHANNELS.openExternal, { senderFrame: { url: 'https://example.com/', parent: null } }, 'https://example.com/'),
    ).rejects.toThrow();
    expect(deps.showItemInFolder).not.toHaveBeenCalled();
    expect(deps.openExternal).not.toHaveBeenCalled();
  });
});

describe('getConnection', () => {
  it('gives the daemon URL and the admin key to the Nimbus window', async () => {
    await expect(invoke(IPC_CHANNELS.getConnection, FROM_WINDOW)).resolves.toEqual({ baseUrl: DAEMON_URL, apiKey: 'the-admin-key' });
  });

  it('takes no arguments', async () => {
    await expect(invoke(IPC_CHANNELS.getConnection, FROM_WINDOW, 'extra')).rejects.toThrow(/Expected 0 argument/);
  });
});

describe('revealFile', () => {
  it('shows a file at the user’s root in the file manager', async () => {
    await invoke(IPC_CHANNELS.revealFile, FROM_WINDOW, 'ana', null, 'notes.txt');
    expect(deps.showItemInFolder).toHaveBeenCalledWith(join(storageDir, 'ana', 'notes.txt'));
  });

  it('shows a file inside a folder', async () => {
    await invoke(IPC_CHANNELS.revealFile, FROM_WINDOW, 'ana', 'Photos', 'cat.jpg');
    expect(deps.showItemInFolder).toHaveBeenCalledWith(join(storageDir, 'ana', 'Photos', 'cat.jpg'));
  });

  it('says so when the file does not exist', async () => {
    await expect(invoke(IPC_CHANNELS.revealFile, FROM_WINDOW, 'ana', null, 'gone.txt')).rejects.toThrow(/File not found/);
    expect(deps.showItemInFolder).not.toHaveBeenCalled();
  });

  const badCalls: [string, unknown[]][] = [
    ['a username with ..', ['..', null, 'notes.txt']],
    ['a username with a slash', ['ana/..', null, 'notes.txt']],
    ['an empty username', ['', null, 'notes.txt']],
    ['a file name with ..', ['ana', null, '..']],
    ['a file name with a slash', ['ana', null, '../../etc/passwd']],
    ['a file name with a backslash', ['ana', null, '..\\..\\secret']],
    ['a file name with a NUL byte', ['ana', null, 'notes.txt\0']],
    ['a reserved device name', ['ana', null, 'CON']],
    ['a folder of ..', ['ana', '..', 'notes.txt']],
    ['a folder with a slash', ['ana', 'Photos/../..', 'notes.txt']],
    ['an empty folder name', ['ana', '', 'notes.txt']],
    ['a number as file name', ['ana', null, 42]],
    ['an object as folder', ['ana', { toString: () => 'Photos' }, 'cat.jpg']],
    ['an undefined folder', ['ana', undefined, 'notes.txt']],
  ];

  it.each(badCalls)('rejects %s before touching the disk', async (_what, args) => {
    await expect(invoke(IPC_CHANNELS.revealFile, FROM_WINDOW, ...args)).rejects.toThrow();
    expect(deps.showItemInFolder).not.toHaveBeenCalled();
  });

  it('rejects a call with missing or extra arguments', async () => {
    await expect(invoke(IPC_CHANNELS.revealFile, FROM_WINDOW, 'ana', 'notes.txt')).rejects.toThrow(/Expected 3 argument/);
    await expect(invoke(IPC_CHANNELS.revealFile, FROM_WINDOW, 'ana', null, 'notes.txt', 'x')).rejects.toThrow(/Expected 3 argument/);
  });
});

describe('resolveUserFile', () => {
  it('keeps every resolved path under the storage directory', () => {
    expect(resolveUserFile('/srv/nimbus', 'ana', null, 'a.txt')).toBe(join('/srv/nimbus', 'ana', 'a.txt'));
    expect(resolveUserFile('/srv/nimbus', 'ana', 'Docs', 'a.txt')).toBe(join('/srv/nimbus', 'ana', 'Docs', 'a.txt'));
  });

  it('NFC-normalises names as the daemon stores them', () => {
    const decomposed = 'Cafe\u0301.txt';
    expect(resolveUserFile('/srv/nimbus', 'ana', null, decomposed)).toBe(join('/srv/nimbus', 'ana', 'Caf\u00e9.txt'));
  });
});

describe('openExternal', () => {
  it('opens http and https URLs in the default browser', async () => {
    await invoke(IPC_CHANNELS.openExternal, FROM_WINDOW, 'https://example.com/badge');
    await invoke(IPC_CHANNELS.openExternal, FROM_WINDOW, 'http://example.com/');
    expect(deps.openExternal.mock.calls).toEqual([['https://example.com/badge'], ['http://example.com/']]);
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'smb://evil/share',
    'ms-msdt:/id',
    'not a url',
    `https://example.com/${'a'.repeat(2100)}`,
  ])('refuses %s', async (url) => {
    await expect(invoke(IPC_CHANNELS.openExternal, FROM_WINDOW, url)).rejects.toThrow(/Only http\(s\) URLs/);
    expect(deps.openExternal).not.toHaveBeenCalled();
  });

  it('refuses a non-string', async () => {
    await expect(invoke(IPC_CHANNELS.openExternal, FROM_WINDOW, { href: 'https://example.com/' })).rejects.toThrow();
    expect(deps.openExternal).not.toHaveBeenCalled();
  });
});

describe('openStorageFolder', () => {
  it('opens the daemon’s storage directory', async () => {
    await invoke(IPC_CHANNELS.openStorageFolder, FROM_WINDOW);
    expect(deps.openPath).toHaveBeenCalledWith(storageDir);
  });

  it('reports the OS’s error', async () => {
    deps.openPath.mockResolvedValueOnce('No application is registered');
    await expect(invoke(IPC_CHANNELS.openStorageFolder, FROM_WINDOW)).rejects.toThrow(/No application is registered/);
  });

  it('ignores nothing: a path argument is refused, not used', async () => {
    await expect(invoke(IPC_CHANNELS.openStorageFolder, FROM_WINDOW, '/etc')).rejects.toThrow(/Expected 0 argument/);
    expect(deps.openPath).not.toHaveBeenCalled();
  });
});

describe('setLanguage', () => {
  it('words the menus and the tray in one of the explorer’s five languages', async () => {
    await invoke(IPC_CHANNELS.setLanguage, FROM_WINDOW, 'cs');
    expect(deps.setLanguage).toHaveBeenCalledWith('cs');
  });

  it('refuses anything else, and another page', async () => {
    for (const bad of ['de', 'cs-CZ', '', 42, null]) {
      await expect(invoke(IPC_CHANNELS.setLanguage, FROM_WINDOW, bad)).rejects.toThrow(/language must be one of en, cs, es, ja, nb/);
    }
    await expect(invoke(IPC_CHANNELS.setLanguage, FROM_WINDOW)).rejects.toThrow(/Expected 1 argument/);
    await expect(invoke(IPC_CHANNELS.setLanguage, { senderFrame: { url: 'https://example.com/', parent: null } }, 'cs')).rejects.toThrow(
      /Refused/,
    );
    expect(deps.setLanguage).not.toHaveBeenCalled();
  });
});

describe('setTheme', () => {
  it('takes system, light or dark, and nothing else', async () => {
    for (const theme of ['system', 'light', 'dark']) await invoke(IPC_CHANNELS.setTheme, FROM_WINDOW, theme);
    expect(deps.setTheme.mock.calls.map(([theme]) => theme)).toEqual(['system', 'light', 'dark']);
    for (const bad of ['Dark', 'auto', '', 1]) {
      await expect(invoke(IPC_CHANNELS.setTheme, FROM_WINDOW, bad)).rejects.toThrow(/theme must be one of system, light, dark/);
    }
    expect(deps.setTheme).toHaveBeenCalledTimes(3);
  });
});
