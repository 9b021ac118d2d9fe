/**
 * Issue 28, item 1: the container image (the root Dockerfile), built and run for real with
 * podman (Docker's engine cannot run on these machines). The image builds on a local
 * node:22-bookworm-slim stand-in (test/ship/podman.ts), passed as the BASE build argument.
 * The journey: start it with a volume, the admin key it made, a user who signs in and uploads;
 * restart the container; the same key and the file are there. Then a new container on the same
 * volume with the admin key from a secret file. Also: a non-root user, the Host check for the
 * published name, the HEALTHCHECK.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildNimbusImage, configurePodman, containerSkipReason, freePort, NIMBUS_IMAGE, podman, podmanOk } from './podman.js';
import { removeTree } from './ship-tools.js';

const skipReason = containerSkipReason();
const IMAGE = NIMBUS_IMAGE;
const run = randomBytes(4).toString('hex');
const VOLUME = `nimbus-ci-data-${run}`;
const NAME = `nimbus-ci-${run}`;
const PUBLIC_NAME = 'files.nimbus.test';
const PASSWORD = 'a container for ana';

let port: number;
let base: string;
let work: string;

/** One request with the Host header given (fetch would send 127.0.0.1's). */
function get(target: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: target, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls /api/health until it answers 200 (the daemon in the container is up). */
async function healthy(name: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.status === 200) return;
      last = `${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const logs = await podman(['logs', name]);
  throw new Error(`${name} not healthy within 60 s (${last}):\n${logs.stdout}\n${logs.stderr}`);
}

async function startContainer(extra: string[]): Promise<void> {
  await podmanOk([
    'run',
    '-d',
    '--name',
    NAME,
    '-e',
    `NIMBUS_PORT=${port}`,
    '-e',
    `NIMBUS_PUBLIC_URL=http://${PUBLIC_NAME}:${port}`,
    '-v',
    `${VOLUME}:/data`,
    ...extra,
    IMAGE,
  ]);
  await healthy(NAME);
}

/** `nimbus key show` inside the container, as an operator runs it. */
async function keyShow(): Promise<string> {
  return (await podmanOk(['exec', NAME, 'nimbus', 'key', 'show'])).stdout.trim();
}

async function signIn(): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'ana', password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  const cookie = /nimbus_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '');
  expect(cookie).not.toBeNull();
  return cookie![0];
}

async function anaFiles(cookie: string): Promise<string[]> {
  const res = await fetch(`${base}/api/files?username=ana`, { headers: { Cookie: cookie } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { files: { name: string }[] }).files.map((file) => file.name);
}

describe.skipIf(skipReason !== null)(`the container image${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  beforeAll(async () => {
    await configurePodman();
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-container-'));
    const seconds = await buildNimbusImage();
    const size = (await podmanOk(['image', 'inspect', IMAGE, '--format', '{{.Size}}'])).stdout.trim();
    console.log(`podman build of the image: ${seconds.toFixed(1)} s, image ${(Number(size) / 1024 / 1024).toFixed(0)} MiB`);
  }, 900_000);

  afterAll(async () => {
    await podman(['rm', '-f', '-t', '2', NAME]);
    await podman(['volume', 'rm', '-f', VOLUME]);
    if (work) await removeTree(work);
  }, 60_000);

  it('declares a non-root user, one volume and a HEALTHCHECK on /api/health', async () => {
    // podman keeps the health check beside Config (docker's image format has it; OCI's has none).
    const [image] = JSON.parse((await podmanOk(['image', 'inspect', IMAGE])).stdout) as {
      Config: { User: string; Volumes: Record<string, unknown>; Env: string[] };
      Healthcheck?: { Test: string[] };
    }[];
    const config = image.Config;
    expect(config.User).toBe('nimbus');
    expect(Object.keys(config.Volumes)).toEqual(['/data']);
    expect(image.Healthcheck?.Test.join(' ')).toContain('healthcheck.mjs');
    expect(config.Env).toEqual(expect.arrayContaining(['NIMBUS_HOST=0.0.0.0', 'NIMBUS_DATA_DIR=/data', 'NIMBUS_KEYCHAIN=off']));
    // Production dependencies only, and no sources or source maps in the image.
    const listing = await podmanOk([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'ls /opt/nimbus /opt/nimbus/node_modules; find /opt/nimbus -name "*.map" -o -name "*.ts" -not -name "*.d.ts" | grep -v node_modules | head',
    ]);
    expect(listing.stdout).toContain('koa');
    for (const devOnly of ['typescript', 'vite', 'electron', 'vitest']) expect(listing.stdout.split('\n')).not.toContain(devOnly);
    expect(listing.stdout).not.toMatch(/\.(map|ts)$/m);
  });

  it('keeps the admin key, the accounts and the files in its volume across a restart', async () => {
    await startContainer([]);
    // The daemon runs as the image's user, not root, and owns its data.
    expect((await podmanOk(['exec', NAME, 'id', '-un'])).stdout.trim()).toBe('nimbus');
    expect((await podmanOk(['exec', NAME, 'stat', '-c', '%U %a', '/data/admin.key'])).stdout.trim()).toBe('nimbus 600');

    // Listening on every address inside, answering to the published name only besides its own.
    expect(await get('/api/health', `${PUBLIC_NAME}:${port}`)).toBe(200);
    expect(await get('/api/health', `evil.example:${port}`)).toBe(403);
    expect((await podmanOk(['healthcheck', 'run', NAME])).code).toBe(0);

    const key = await keyShow();
    expect(key.length).toBeGreaterThan(20);
    const created = await fetch(`${base}/api/user/create`, {
      method: 'POST',
      headers: { 'API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'ana', email: 'ana@example.com', password: PASSWORD }),
    });
    expect(created.status).toBe(201);
    const cookie = await signIn();
    const upload = await fetch(`${base}/api/files/upload?username=ana&file=report.txt`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: base },
      body: 'kept in the volume\n',
    });
    expect(upload.status).toBe(201);

    const restarted = Date.now();
    await podmanOk(['restart', '-t', '30', NAME]);
    await healthy(NAME);
    console.log(`podman restart until healthy: ${((Date.now() - restarted) / 1000).toFixed(1)} s`);
    // SIGTERM stopped the daemon cleanly: it said so, and its lock let the new start in.
    expect((await podmanOk(['logs', NAME])).stderr + (await podmanOk(['logs', NAME])).stdout).toMatch(/SIGTERM received/);

    expect(await keyShow()).toBe(key);
    expect((await fetch(`${base}/api/dash`, { headers: { 'API-Key': key } })).status).toBe(200);
    const again = await signIn();
    expect(await anaFiles(again)).toEqual(['report.txt']);
    const download = await fetch(`${base}/api/files/download?username=ana&file=report.txt`, { headers: { Cookie: again } });
    expect(await download.text()).toBe('kept in the volume\n');
  }, 180_000);

  it('takes the admin key from a secret file in a new container on the same volume', async () => {
    await podmanOk(['rm', '-f', '-t', '30', NAME]);
    const secretKey = randomBytes(32).toString('base64url');
    const secret = path.join(work, 'nimbus_api_key');
    await writeFile(secret, `${secretKey}\n`);
    await chmod(secret, 0o644);
    await startContainer(['-v', `${secret}:/run/secrets/nimbus_api_key:ro`, '-e', 'NIMBUS_API_KEY_FILE=/run/secrets/nimbus_api_key']);

    expect((await fetch(`${base}/api/dash`, { headers: { 'API-Key': secretKey } })).status).toBe(200);
    // `nimbus key show` inside reads the same file.
    expect(await keyShow()).toBe(secretKey);
    const files = await fetch(`${base}/api/files?username=ana`, { headers: { 'API-Key': secretKey } });
    expect(((await files.json()) as { files: { name: string }[] }).files.map((file) => file.name)).toEqual(['report.txt']);
    // The key is in no argv and no image layer: only the file's path is in the container's config.
    const inspect = (await podmanOk(['inspect', NAME])).stdout;
    expect(inspect).not.toContain(secretKey);
  }, 120_000);
});
