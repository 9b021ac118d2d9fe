import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { IPC_CHANNELS, type NimbusBridge } from '../../shared/ipc.js';

const electron = await import('./fakeElectron.js');
const PRELOAD = new URL('../../main/preload.cts', import.meta.url);

/**
 * Runs the preload as Electron's sandbox does: compiled to CommonJS (as tsc emits
 * dist/main/preload.cjs), wrapped in a function whose `require` knows only 'electron'.
 */
function runPreloadInSandbox(): void {
  const { outputText } = ts.transpileModule(readFileSync(PRELOAD, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    fileName: 'preload.cts',
  });
  const sandboxRequire = (name: string) => {
    if (name === 'electron') return electron;
    throw new Error(`module not found: ${name} (a sandboxed preload can only require electron)`);
  };
  const module = { exports: {} };
  new Function('require', 'process', 'exports', 'module', outputText)(
    sandboxRequire,
    { platform: process.platform },
    module.exports,
    module,
  );
}

// Typed as every key of NimbusBridge: adding a member to the interface without listing
// it here is a compile error, so this list is the interface's key set.
const BRIDGE_KEYS: Record<keyof NimbusBridge, true> = {
  getConnection: true,
  revealFile: true,
  openExternal: true,
  openStorageFolder: true,
  setLanguage: true,
  setTheme: true,
  platform: true,
};

let bridge: Record<string, unknown>;

beforeAll(() => {
  runPreloadInSandbox();
  expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledOnce();
  const [name, exposed] = electron.contextBridge.exposeInMainWorld.mock.calls[0] as [string, Record<string, unknown>];
  expect(name).toBe('nimbus');
  bridge = exposed;
});

describe('preload bridge', () => {
  it('exposes exactly the keys of NimbusBridge as window.nimbus', () => {
    expect(Object.keys(bridge).sort()).toEqual(Object.keys(BRIDGE_KEYS).sort());
  });

  it('never hands ipcRenderer, or any of its methods, to the page', () => {
    const values = Object.values(bridge);
    expect(values).not.toContain(electron.ipcRenderer);
    expect(values).not.toContain(electron.ipcRenderer.invoke);
    expect(values).not.toContain(electron.ipcRenderer.send);
    expect(values).not.toContain(electron.ipcRenderer.on);
  });

  it('gives the platform as a string', () => {
    expect(bridge.platform).toBe(process.platform);
  });

  const calls: [keyof NimbusBridge, unknown[], string][] = [
    ['getConnection', [], IPC_CHANNELS.getConnection],
    ['revealFile', ['ana', 'Photos', 'cat.jpg'], IPC_CHANNELS.revealFile],
    ['revealFile', ['ana', null, 'notes.txt'], IPC_CHANNELS.revealFile],
    ['openExternal', ['https://example.com/'], IPC_CHANNELS.openExternal],
    ['openStorageFolder', [], IPC_CHANNELS.openStorageFolder],
    ['setLanguage', ['cs'], IPC_CHANNELS.setLanguage],
    ['setTheme', ['dark'], IPC_CHANNELS.setTheme],
  ];

  it.each(calls)('%s(%j) invokes its channel with exactly those arguments', async (method, args, channel) => {
    electron.ipcRenderer.invoke.mockClear();
    electron.ipcRenderer.invoke.mockResolvedValueOnce('answer');
    await expect((bridge[method] as (...a: unknown[]) => Promise<unknown>)(...args)).resolves.toBe('answer');
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledExactlyOnceWith(channel, ...args);
  });

  it('drops extra arguments a page might add', async () => {
    electron.ipcRenderer.invoke.mockClear();
    await (bridge.openStorageFolder as (...a: unknown[]) => Promise<void>)('/etc');
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledExactlyOnceWith(IPC_CHANNELS.openStorageFolder);
  });
});

describe('preload source', () => {
  // A sandboxed preload can require only 'electron' and a few built-ins, never a relative file.
  it('imports nothing at run time but electron', () => {
    const source = readFileSync(PRELOAD, 'utf8');
    const runtimeImports = [...source.matchAll(/^import\s+(?!type\b).*?from\s+'([^']+)'/gm)].map((m) => m[1]);
    expect(runtimeImports).toEqual(['electron']);
    expect(source).not.toMatch(/\brequire\(/);
  });
});
