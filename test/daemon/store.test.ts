/**
 * The store (docs/architecture.md#the-store): state survives restarts, one daemon per data
 * directory, a corrupt db.json stops start-up untouched, and no acknowledged mutation is
 * lost to SIGKILL.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/index.js';
import { childEnv, spawnDaemon } from '../helpers/child.js';
import { createUser, listTree, startTestDaemon, TEST_KEY, upload, type TestDaemon } from '../helpers/daemon.js';

const tempDir = () => mkdtemp(path.join(os.tmpdir(), 'nimbus-store-'));
/** A listing with share links reduced to their path: a restart on port 0 gets a new port. */
const withoutOrigin = (body: { files: { shareUrl: string | null }[] }) => ({
  files: body.files.map((f) => ({ ...f, shareUrl: f.shareUrl && new URL(f.shareUrl).pathname })),
});
// The built-in badges are on the daemon itself, so their URL follows it to its new port.
const badgesWithoutOrigin = (roles: { badge: string }[]) =>
  roles.map((r) => ({ ...r, badge: r.badge.replace(/^http:\/\/127\.0\.0\.1:\d+\//, '/') }));
const quiet = { port: 0, apiKey: TEST_KEY, env: {}, log: () => undefined };

describe('a restart', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t.close());

  it('keeps users, roles, folders, files, shares and keys', async () => {
    await createUser(t, 'ana');
    await t.api('POST', '/api/role/create', { name: 'gold', maxStorage: '42', badge: 'https://example.com/g.png' });
    await t.api('POST', '/api/user/role', { username: 'ana', name: 'gold' });
    await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
    await upload(t, 'ana', 'a.txt', 'hello', { folder: 'docs' });
    const shared = await t.api('POST', '/api/files/share', { username: 'ana', file: 'a.txt', folder: 'docs' });
    const key = (await t.api('POST', '/api/keys/create', { label: 'ci', scope: 'read' })).body.key as string;
    const before = {
      user: (await t.api('GET', '/api/user', { username: 'ana' })).body,
      roles: badgesWithoutOrigin((await t.api('GET', '/api/role/all')).body),
      files: withoutOrigin((await t.api('GET', '/api/folders/files', { username: 'ana', folder: 'docs' })).body),
      keys: (await t.api('GET', '/api/keys')).body.keys.filter((k: { builtIn: boolean }) => !k.builtIn),
    };
    await t.stop();
    await t.restart();
    expect((await t.api('GET', '/api/user', { username: 'ana' })).body).toEqual(before.user);
    expect(badgesWithoutOrigin((await t.api('GET', '/api/role/all')).body)).toEqual(before.roles);
    expect(withoutOrigin((await t.api('GET', '/api/folders/files', { username: 'ana', folder: 'docs' })).body)).toEqual(before.files);
    expect((await t.api('GET', '/api/keys')).body.keys.filter((k: { builtIn: boolean }) => !k.builtIn)).toEqual(before.keys);
    expect((await t.api('GET', '/api/dash', {}, { key })).status).toBe(200);
    expect((await t.raw('GET', new URL(shared.body.file.shareUrl).pathname, { key: null })).text).toBe('hello');
  });

  it('counts the files already on disk from the first request after a start (quota, listings)', async () => {
    await createUser(t, 'full');
    await t.api('POST', '/api/role/create', { name: 'one', maxStorage: '1', badge: 'https://example.com/o.png' });
    await t.api('POST', '/api/user/role', { username: 'full', name: 'one' });
    await upload(t, 'full', 'most', Buffer.alloc(1048576 - 10));
    await t.stop();
    await t.restart();
    const res = await t.api('POST', '/api/files/upload', { username: 'full', file: 'more' }, { body: 'x'.repeat(100) });
    expect(res.status, res.text).toBe(507);
    expect((await t.api('GET', '/api/files', { username: 'full' })).body.files.map((f: { name: string }) => f.name)).toEqual(['most']);
  });

  it('writes db.json with mode 0600 and keeps no temp file beside it', async () => {
    const names = await readdir(t.dataDir);
    expect(names.filter((n) => n.includes('.tmp'))).toEqual([]);
    const { stat } = await import('node:fs/promises');
    expect((await stat(path.join(t.dataDir, 'db.json'))).mode & 0o777).toBe(0o600);
  });
});

describe('the data directory lock', () => {
  it('refuses a second daemon on the same data directory with a clear message, and frees it on close', async () => {
    const dataDir = await tempDir();
    const first = await startDaemon({ ...quiet, dataDir });
    try {
      await expect(startDaemon({ ...quiet, dataDir })).rejects.toThrow(/Another Nimbus daemon \(pid \d+\) is using this data directory/);
      const res = await fetch(`${first.url}/api/dash`, { headers: { 'API-Key': TEST_KEY } });
      expect(res.status).toBe(200);
    } finally {
      await first.close();
    }
    const second = await startDaemon({ ...quiet, dataDir });
    await second.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('takes over a lock whose process is gone', async () => {
    const dataDir = await tempDir();
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('close', resolve));
    await writeFile(path.join(dataDir, 'nimbus.lock'), JSON.stringify({ pid: dead.pid, startedAt: new Date().toISOString() }));
    const daemon = await startDaemon({ ...quiet, dataDir });
    await daemon.close();
    await rm(dataDir, { recursive: true, force: true });
  });
});

describe('a corrupt db.json', () => {
  it.each([
    ['truncated JSON', '{"schema":1,"users":[{"username":"ana"'],
    ['not JSON at all', '\u0000\u0000\u0000garbage'],
    ['JSON that is not a store', '{"hello":"world"}'],
    ['an empty file', ''],
    ['a schema that is no version number', '{"schema":"2","users":[],"roles":[],"shares":[],"keys":[],"verifications":[]}'],
  ])('stops start-up with a clear message and is left byte-identical (%s)', async (_what, content) => {
    const dataDir = await tempDir();
    const file = path.join(dataDir, 'db.json');
    await writeFile(file, content);
    await expect(startDaemon({ ...quiet, dataDir })).rejects.toThrow(/store .*db\.json is unreadable.*left untouched/s);
    expect(await readFile(file, 'utf8')).toBe(content);
    // Start-up failed cleanly: the lock is free and nothing else was written but the log saying why.
    expect((await readdir(dataDir)).filter((n) => n !== 'storage').sort()).toEqual(['db.json', 'logs']);
    expect(await readFile(path.join(dataDir, 'logs', 'nimbus.log'), 'utf8')).toMatch(
      /"level":"error".*Nimbus could not start: .*db\.json is unreadable/,
    );
    await rm(dataDir, { recursive: true, force: true });
  });
});

describe('SIGKILL in the middle of a stream of mutations', () => {
  it('keeps every acknowledged user and role across 10 kill cycles, and db.json always parses', async () => {
    const dataDir = await tempDir();
    const env = childEnv({ NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off' });
    const acknowledged: string[] = [];
    let next = 0;
    try {
      for (let cycle = 0; cycle < 10; cycle++) {
        const daemon = await spawnDaemon(dataDir, env);
        let killed = false;
        const killAfter = 5 + ((cycle * 7) % 11);
        let ackedThisCycle = 0;
        const worker = async (w: number) => {
          while (!killed) {
            // Users (a password hash each, so slow) and roles (fast) interleave in the same commits.
            const name = `c${cycle}${w % 2 ? 'r' : 'u'}${next++}`;
            const route =
              w % 2
                ? `/api/role/create?name=${name}&maxStorage=1&badge=https://example.com/b.png`
                : `/api/user/create?username=${name}&email=${name}%40example.com&password=password123`;
            try {
              const res = await fetch(`${daemon.url}${route}`, { method: 'POST', headers: { 'API-Key': TEST_KEY } });
              if (res.status === 201) {
                acknowledged.push(name);
                if (++ackedThisCycle >= killAfter && !killed) {
                  killed = true;
                  daemon.child.kill('SIGKILL');
                }
              } else await res.text();
            } catch {
              // The daemon died with this request in flight: not acknowledged.
            }
          }
        };
        await Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));
        expect(await daemon.exited).toBe('SIGKILL');
        const db = JSON.parse(await readFile(path.join(dataDir, 'db.json'), 'utf8')) as {
          users: { username: string }[];
          roles: { name: string }[];
        };
        const stored = new Set([...db.users.map((u) => u.username), ...db.roles.map((r) => r.name)]);
        expect(
          acknowledged.filter((u) => !stored.has(u)),
          `cycle ${cycle}`,
        ).toEqual([]);
      }
      expect(acknowledged.length).toBeGreaterThanOrEqual(50);
      // A last start (in-process) sees every one of them through the API.
      const t = await startTestDaemon({ dataDir });
      try {
        const users = (await t.api('GET', '/api/user/all')).body.map((u: { username: string }) => u.username);
        const roles = (await t.api('GET', '/api/role/all')).body.map((r: { name: string }) => r.name);
        const names = new Set([...users, ...roles]);
        expect(acknowledged.filter((u) => !names.has(u))).toEqual([]);
        expect((await listTree(path.join(dataDir, 'tmp'))).length).toBe(0);
      } finally {
        await t.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
