/**
 * A fresh machine without a compiler or libsecret headers must install and build Nimbus
 * (issue 10, item 1): nothing the build compiles may import an optional package, and the
 * keychain module must come prebuilt, with no install script.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/child.js';

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** The packages that the sources `tsc -p tsconfig.build.json` compiles import. */
function importedPackages(): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of ['daemon', 'main', 'shared']) {
    for (const entry of readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = path.join(entry.parentPath, entry.name);
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"./][^'"]*)['"]/g)) {
        const spec = match[1];
        if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        found.set(name, path.relative(ROOT, file));
      }
    }
  }
  return found;
}

/** Packages the built code loads: imported as a value (an `import type` is erased by the build), or required by name. */
function runtimePackages(): Set<string> {
  const found = new Set<string>();
  for (const dir of ['daemon', 'main', 'shared']) {
    for (const entry of readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.c?ts$/.test(entry.name)) continue;
      const text = readFileSync(path.join(entry.parentPath, entry.name), 'utf8');
      const specs = [
        ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^;]*?from\s+['"]([^'"./][^'"]*)['"]/gm)].map((m) => m[1]),
        ...[...text.matchAll(/(?:import|require|createRequire\([^)]*\))\s*\(\s*['"]([^'"./][^'"]*)['"]/g)].map((m) => m[1]),
      ];
      for (const spec of specs) found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  return found;
}

describe('a fresh install', () => {
  it('lists in dependencies no package the built code never loads (a type-only import is a devDependency)', () => {
    const loaded = runtimePackages();
    const unused = Object.keys(pkg.dependencies ?? {}).filter((name) => !loaded.has(name));
    expect(unused).toEqual([]);
  });

  it('builds without any optional package: every import is a dependency or devDependency', () => {
    const optional = pkg.optionalDependencies ?? {};
    for (const [name, file] of importedPackages()) {
      expect(optional[name], `${file} imports the optional package ${name}`).toBeUndefined();
      expect(
        pkg.dependencies?.[name] ?? pkg.devDependencies?.[name],
        `${file} imports ${name}, which package.json does not list`,
      ).toBeDefined();
    }
  });

  it('keeps the admin key through @napi-rs/keyring, which ships its binary prebuilt (no install script, no compiler)', () => {
    expect(pkg.dependencies?.['@napi-rs/keyring']).toBeDefined();
    expect(pkg.dependencies?.keytar ?? pkg.optionalDependencies?.keytar ?? pkg.devDependencies?.keytar).toBeUndefined();
    const require = createRequire(path.join(ROOT, 'package.json'));
    const keyring = require('@napi-rs/keyring') as { AsyncEntry: unknown };
    expect(typeof keyring.AsyncEntry).toBe('function');
    const keyringPkg = require('@napi-rs/keyring/package.json') as PackageJson;
    expect(keyringPkg.scripts?.install ?? keyringPkg.scripts?.postinstall).toBeUndefined();
  });
});
