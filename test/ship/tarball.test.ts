/**
 * Issue 28, item 2: the production install from npm (docs/shipping.md). `npm pack` in a copy of
 * the working tree (its prepare step builds, as it does for an operator), then `npm install -g`
 * of the tarball into a fresh prefix with `--omit=dev`: the installed `nimbus daemon` answers
 * /api/health and the API with its admin key, and serves the web UI. Then `npm ci --omit=dev` in
 * a checkout after a build (the install that failed before: prepare needed TypeScript).
 * Real npm, real registry cache (--prefer-offline: the registry only for what the cache lacks).
 */
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyWorkingTree,
  countPackages,
  MiB,
  operatorEnv,
  removeTree,
  ROOT,
  run,
  runOk,
  sizeOf,
  startDaemon,
  type StartedDaemon,
} from './ship-tools.js';

const VERSION = (JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const NPM_QUIET = ['--no-audit', '--no-fund', '--prefer-offline'];
/** Dev dependencies that must not reach a production install (the build tools, the shell, the test runner). */
const DEV_ONLY = ['typescript', 'vite', 'electron', 'vitest', 'tsx', 'eslint', 'react', 'playwright-core'];

let work: string;
let tarball: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-tarball-'));
  const source = path.join(work, 'source');
  await copyWorkingTree(source, { linkModules: true });
  const packed = await runOk('npm', ['pack', '--pack-destination', work, ...NPM_QUIET], { cwd: source });
  console.log(`npm pack (prepare builds dist/ and renderer/dist/): ${packed.seconds.toFixed(1)} s`);
  tarball = path.join(work, `nimbus-${VERSION}.tgz`);
}, 600_000);

afterAll(async () => {
  if (work) await removeTree(work);
});

/** The admin key `nimbus key show` prints, and the daemon's answers with it. */
async function apiJourney(daemon: StartedDaemon, nimbus: { cmd: string; args: string[] }, dataDir: string, env: NodeJS.ProcessEnv) {
  const health = await fetch(`${daemon.url}/api/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ status: 'ok' });

  const key = (await runOk(nimbus.cmd, [...nimbus.args, 'key', 'show', '--data-dir', dataDir], { env })).stdout.trim();
  expect(key.length).toBeGreaterThan(20);
  const headers = { 'API-Key': key };
  expect((await fetch(`${daemon.url}/api/dash`)).status).toBe(401);
  const dash = await fetch(`${daemon.url}/api/dash`, { headers });
  expect(dash.status).toBe(200);
  expect(await dash.json()).toMatchObject({ version: VERSION });

  const created = await fetch(`${daemon.url}/api/user/create?username=ana&email=ana@example.com&password=correct-horse-battery`, {
    method: 'POST',
    headers,
  });
  expect(created.status).toBe(201);
  const upload = await fetch(`${daemon.url}/api/files/upload?username=ana&file=notes.txt`, {
    method: 'POST',
    headers,
    body: 'shipped from a tarball\n',
  });
  expect(upload.status).toBe(201);
  const download = await fetch(`${daemon.url}/api/files/download?username=ana&file=notes.txt`, { headers });
  expect(await download.text()).toBe('shipped from a tarball\n');

  // The web UI came in the package (renderer/dist).
  const page = await fetch(`${daemon.url}/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<div id="root">');
}

describe('npm pack, then npm install -g of the tarball with --omit=dev', () => {
  it('packs the build and the UI, no sources, no source maps', async () => {
    const listing = (await runOk('tar', ['-tzf', tarball])).stdout.split('\n').filter(Boolean);
    expect(listing).toContain('package/bin/nimbus.js');
    expect(listing).toContain('package/dist/daemon/cli.js');
    expect(listing).toContain('package/renderer/dist/index.html');
    expect(listing.filter((file) => file.endsWith('.ts') || file.endsWith('.map'))).toEqual([]);
    expect(listing.filter((file) => /^package\/(daemon|shared|renderer\/src|test|bench|main)\//.test(file))).toEqual([]);
    console.log(`tarball: ${listing.length} files, ${((await stat(tarball)).size / 1024).toFixed(0)} KiB`);
  });

  it('installs only runtime dependencies, and the installed `nimbus daemon` serves the API and the UI', { timeout: 300_000 }, async () => {
    const prefix = path.join(work, 'prefix');
    const installed = await runOk('npm', ['install', '-g', '--prefix', prefix, '--omit=dev', ...NPM_QUIET, tarball], { cwd: work });
    const pkg = path.join(prefix, 'lib', 'node_modules', 'nimbus');
    const modules = path.join(pkg, 'node_modules');
    const names = await readdir(modules);
    expect(names.filter((name) => DEV_ONLY.includes(name))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['koa', 'pino', '@napi-rs']));
    console.log(
      `npm install -g --omit=dev: ${installed.seconds.toFixed(1)} s, ${await countPackages(modules)} packages, ` +
        `${((await sizeOf(pkg)) / MiB).toFixed(1)} MiB`,
    );

    const dataDir = path.join(work, 'data');
    // A server: no desktop keychain (the key goes to <data-dir>/admin.key), no HOME of the tests.
    const env = operatorEnv({ NIMBUS_KEYCHAIN: 'off', HOME: work });
    const nimbus = { cmd: path.join(prefix, 'bin', 'nimbus'), args: [] };
    const daemon = await startDaemon(nimbus.cmd, ['daemon', '--port', '0', '--data-dir', dataDir], env, work);
    try {
      await apiJourney(daemon, nimbus, dataDir, env);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
  });
});

describe('npm ci --omit=dev in a checkout after a build', () => {
  it('keeps the build (prepare skips it without TypeScript) and `nimbus daemon` runs', { timeout: 300_000 }, async () => {
    // The copy npm pack built in: its dist/ and renderer/dist/ are fresh. A second copy with
    // node_modules of its own (never npm ci through the first copy's link to the checkout's).
    const checkout = path.join(work, 'checkout');
    await runOk('cp', ['-a', path.join(work, 'source'), checkout]);
    await removeTree(path.join(checkout, 'node_modules'));
    const ci = await run('npm', ['ci', '--omit=dev', ...NPM_QUIET], { cwd: checkout });
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stdout).toMatch(/not installed \(--omit=dev\): keeping the build/);
    const modules = path.join(checkout, 'node_modules');
    expect((await readdir(modules)).filter((name) => DEV_ONLY.includes(name))).toEqual([]);
    console.log(
      `npm ci --omit=dev: ${ci.seconds.toFixed(1)} s, ${await countPackages(modules)} packages, ` +
        `node_modules ${((await sizeOf(modules)) / MiB).toFixed(1)} MiB`,
    );

    const dataDir = path.join(work, 'data-checkout');
    const env = operatorEnv({ NIMBUS_KEYCHAIN: 'off', HOME: work });
    const nimbus = { cmd: process.execPath, args: [path.join(checkout, 'bin', 'nimbus.js')] };
    const daemon = await startDaemon(nimbus.cmd, [...nimbus.args, 'daemon', '--port', '0', '--data-dir', dataDir], env, checkout);
    try {
      await apiJourney(daemon, nimbus, dataDir, env);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
  });
});
