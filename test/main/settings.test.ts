import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSettings } from '../../main/settings.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nimbus-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (text: string) => writeFileSync(join(dir, 'settings.json'), text);

describe('loadSettings', () => {
  it('is empty (daemon defaults) without a settings file', () => {
    expect(loadSettings(dir, vi.fn())).toEqual({});
  });

  it('reads the port and directories', () => {
    write(JSON.stringify({ port: 9000, dataDir: '/srv/nimbus', storageDir: '/mnt/files' }));
    expect(loadSettings(dir, vi.fn())).toEqual({ port: 9000, dataDir: '/srv/nimbus', storageDir: '/mnt/files' });
  });

  it('drops values of the wrong type or range', () => {
    write(JSON.stringify({ port: 70000, dataDir: 42, storageDir: '' }));
    expect(loadSettings(dir, vi.fn())).toEqual({});
    write(JSON.stringify({ port: '7878' }));
    expect(loadSettings(dir, vi.fn())).toEqual({});
  });

  it('warns about a damaged file and leaves it as it is', () => {
    write('{ "port": 78');
    const warn = vi.fn();
    expect(loadSettings(dir, warn)).toEqual({});
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('settings.json'));
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).toBe('{ "port": 78');
  });
});
