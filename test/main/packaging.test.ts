import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const config = readFileSync(new URL('electron-builder.yml', ROOT), 'utf8');

/**
 * The `key: value` pairs and `- item` lists under a top-level key of the YAML file.
 * (No YAML parser is installed; this reads the plain block style the file uses.)
 */
function block(name: string): { values: Record<string, string>; items: string[] } {
  const lines = config.split('\n');
  const start = lines.findIndex((line) => line === `${name}:` || line.startsWith(`${name}: `));
  if (start === -1) throw new Error(`no top-level "${name}"`);
  const values: Record<string, string> = {};
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break; // the next top-level key
    const content = line.replace(/\s+#.*$/, '').trim();
    if (content === '' || content.startsWith('#')) continue;
    const item = /^- (.+)$/.exec(content);
    if (item) items.push(unquote(item[1]));
    else {
      const pair = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(content);
      if (pair) values[pair[1]] = unquote(pair[2]);
    }
  }
  return { values, items };
}

const unquote = (s: string) => s.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');

function topLevel(name: string): string | undefined {
  return new RegExp(`^${name}:\\s*(.+)$`, 'm').exec(config)?.[1].trim();
}

describe('electron-builder.yml', () => {
  it('names the app', () => {
    expect(topLevel('appId')).toBe('dev.nimbus.app');
    expect(topLevel('productName')).toBe('Nimbus');
  });

  it('flips the fuses: no run-as-node, NODE_OPTIONS or --inspect; only the verified asar; encrypted cookies', () => {
    expect(block('electronFuses').values).toMatchObject({
      runAsNode: 'false',
      enableNodeOptionsEnvironmentVariable: 'false',
      enableNodeCliInspectArguments: 'false',
      onlyLoadAppFromAsar: 'true',
      enableEmbeddedAsarIntegrityValidation: 'true',
      enableCookieEncryption: 'true',
    });
  });

  it('builds AppImage and deb for Linux, dmg for macOS, nsis for Windows', () => {
    expect(block('linux').items).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(block('mac').items).toContain('dmg');
    expect(block('win').items).toContain('nsis');
  });

  it('bundles the built main process, daemon and renderer', () => {
    expect(block('files').items).toEqual(expect.arrayContaining(['dist/**/*', 'renderer/dist/**/*', 'package.json']));
  });

  it('packs into an asar archive, keeping the keychain’s native module (@napi-rs/keyring) outside it', () => {
    expect(topLevel('asar')).toBe('true');
    expect(block('asarUnpack').items).toContain('**/node_modules/@napi-rs/keyring*/**/*.node');
  });

  it('uses the icon in build/ for every platform', () => {
    for (const platform of ['linux', 'mac', 'win']) expect(block(platform).values.icon, platform).toBe('build/icon.png');
  });
});

describe('build/icon.png', () => {
  const png = readFileSync(new URL('build/icon.png', ROOT));

  it('is a 1024×1024 RGBA PNG (electron-builder derives .icns and .ico from it)', () => {
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    expect(png.readUInt32BE(16)).toBe(1024);
    expect(png.readUInt32BE(20)).toBe(1024);
    expect(png[25]).toBe(6); // colour type RGBA
  });

  it('has transparent corners and an opaque middle', () => {
    const idat = png.indexOf('IDAT');
    const rows = inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
    const alpha = (x: number, y: number) => rows[y * (1024 * 4 + 1) + 1 + x * 4 + 3];
    expect(alpha(2, 2)).toBe(0);
    expect(alpha(512, 512)).toBe(255);
  });
});
