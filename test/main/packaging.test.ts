/**
 * Packaging (issue 11): electron-builder.yml as electron-builder itself reads and checks it.
 *
 * `Packager.validateConfig()` is the first step of every `electron-builder` run (and so of
 * `npm run dist`): it reads package.json and the configuration file, checks package.json's
 * metadata, and validates the configuration against electron-builder's JSON schema
 * (app-builder-lib's scheme.json). It only reads files: no Electron binary, no network —
 * the download that cannot happen on this machine comes later, when the app is packed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { Packager, type Configuration, type FileSet } from 'electron-builder';
import { minimatch } from 'minimatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/child.js';

const CONFIG = path.join(ROOT, 'electron-builder.yml');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

/**
 * The `.node` files (as `node_modules/...` paths) of the named packages and everything they
 * depend on, optional platform packages included, as installed here.
 */
function nativeModules(names: string[]): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const visitPackage = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const dir = path.join(ROOT, 'node_modules', name);
    let manifest: { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
    try {
      manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as typeof manifest;
    } catch {
      return; // an optional dependency for another platform is not installed
    }
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }))
      if (file.endsWith('.node')) found.push(path.posix.join('node_modules', name, file.split(path.sep).join('/')));
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) visitPackage(dep);
  };
  names.forEach(visitPackage);
  return found;
}
const yaml = readFileSync(CONFIG, 'utf8');

/** The configuration as `electron-builder --config <config>` in `projectDir` would build with, or its error. */
async function validate(config: string, projectDir = ROOT): Promise<Configuration> {
  const packager = new Packager({ projectDir, config });
  await packager.validateConfig();
  return packager.config;
}

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'nimbus-packaging-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of electron-builder.yml with one line changed, written where validate() can read it. */
function brokenCopy(from: string, to: string): string {
  expect(yaml, `electron-builder.yml no longer contains "${from}"`).toContain(from);
  const file = path.join(scratch, `${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, yaml.replace(from, to));
  return file;
}

describe('npm run dist', () => {
  it('builds, then runs electron-builder with electron-builder.yml (extra arguments such as --linux pass through)', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.scripts.dist).toMatch(/^npm run build && electron-builder --config electron-builder\.yml\b/);
    expect(pkg.devDependencies['electron-builder']).toBeDefined();
  });
});

describe('electron-builder.yml, validated by electron-builder', () => {
  let config: Configuration;
  beforeAll(async () => {
    config = await validate(CONFIG);
  });

  it('passes electron-builder’s own checks of package.json and of the configuration schema', () => {
    expect(config.directories?.output).toBe('release');
  });

  it('names the app', () => {
    expect(config.appId).toBe('dev.nimbus.app');
    expect(config.productName).toBe('Nimbus');
  });

  it('flips the fuses: no run-as-node, NODE_OPTIONS or --inspect; only the verified asar; encrypted cookies', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      enableCookieEncryption: true,
    });
  });

  it('builds AppImage and deb for Linux, dmg for macOS, nsis for Windows', () => {
    expect(config.linux?.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(config.mac?.target).toContain('dmg');
    expect(config.win?.target).toContain('nsis');
  });

  it('bundles the built main process, daemon and renderer', () => {
    // electron-builder folds the list of patterns into one file set.
    const filters = (config.files as FileSet[]).flatMap((set) => set.filter ?? []);
    expect(filters).toEqual(expect.arrayContaining(['dist/**/*', 'renderer/dist/**/*', 'package.json']));
  });

  it('packs into an asar archive, keeping every native module of a runtime dependency outside it', () => {
    expect(config.asar).toBe(true);
    // A .node file cannot be loaded from inside the archive: the keychain (@napi-rs/keyring) and
    // the storage watcher (@parcel/watcher) would fail only in the packaged app. Their platform
    // binaries come as optional dependencies of the package, so look at every installed package.
    const unpack = [config.asarUnpack ?? []].flat();
    const natives = nativeModules(Object.keys(pkg.dependencies));
    expect(natives.length).toBeGreaterThan(0);
    for (const file of natives)
      expect(
        unpack.some((glob) => minimatch(file, glob, { dot: true })),
        file,
      ).toBe(true);
  });

  it('uses the icon in build/ for every platform', () => {
    for (const platform of ['linux', 'mac', 'win'] as const) expect(config[platform]?.icon, platform).toBe('build/icon.png');
  });
});

describe('electron-builder’s checks catch a broken configuration', () => {
  const invalid =
    /^Invalid configuration object\. electron-builder \d+\.\d+\.\d+ has been initialized using a configuration object that does not match the API schema\./;

  it.each([
    ['an unknown top-level key', 'electronFuses:', 'electronFuse:', /configuration has an unknown property 'electronFuse'/],
    ['a wrong type', 'asar: true', 'asar: maybe', /configuration\.asar should be one of these:\s+null \| boolean/],
    ['a wrong type inside a block', 'runAsNode: false', 'runAsNode: nope', /configuration\.electronFuses\.runAsNode should be a boolean/],
    // A misspelt key inside a block is caught too, though electron-builder's message names only the block.
    ['an unknown key inside a block', 'oneClick: false', 'oneclick: false', /configuration\.nsis should be one of these/],
  ])('%s', async (_what, from, to, message) => {
    const error = await validate(brokenCopy(from, to)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(invalid);
    expect((error as Error).message).toMatch(message);
  });

  it('and a package.json electron-builder refuses (Electron among the production dependencies)', async () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const project = mkdtempSync(path.join(scratch, 'project-'));
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ ...pkg, dependencies: { ...pkg.dependencies, electron: pkg.devDependencies.electron } }),
    );
    await expect(validate(CONFIG, project)).rejects.toThrow(/Package "electron" is only allowed in "devDependencies"/);
  });
});

describe('build/icon.png', () => {
  const png = readFileSync(path.join(ROOT, 'build', 'icon.png'));

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
