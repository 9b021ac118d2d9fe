/**
 * The store under crashes and failing disks: SIGKILL at random moments while mutations are
 * in flight, failed writes and fsyncs, damaged db.json files, and concurrent mutations of
 * one user that must end in some serial order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { armFailpoint, disarmFailpoint } from '../../daemon/util/failpoints.js';
import { call } from '../helpers/accounts.js';
import { startTestDaemon, TEST_KEY, type TestDaemon } from '../helpers/daemon.js';
import { NIMBUS } from '../helpers/child.js';

const CYCLES = Number(process.env.NIMBUS_KILL_CYCLES ?? 200);

function startChild(dataDir: string): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [...NIMBUS, 'daemon', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off', NIMBUS_RECONCILE_SECONDS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /listening on (\S+)/.exec(d.toString());
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`daemon exited with ${code}: ${stderr}`)));
  });
  return { child, url };
}

describe('SIGKILL during concurrent mutations', () => {
  it(`keeps every acknowledged mutation and a parseable db.json across ${CYCLES} kills`, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-kill-'));
    const acknowledged: string[] = [];
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const { child, url } = startChild(dataDir);
        const base = await url;
        const exited = new Promise((r) => child.once('exit', r));
        // Keep 8 mutations in flight and kill after a random number of acknowledgements.
        const killAt = 1 + Math.floor(Math.random() * 40);
        let acks = 0;
        let killed = false;
        const kill = () => {
          if (!killed) child.kill('SIGKILL');
          killed = true;
        };
        const deadline = setTimeout(kill, 3000);
        let next = 0;
        const worker = async () => {
          while (!killed) {
            const name = `r${cycle}_${next++}`;
            const res = await fetch(`${base}/api/role/create?name=${name}&maxStorage=1&badge=https://example.com/${name}.png`, {
              method: 'POST',
              headers: { 'API-Key': TEST_KEY },
            }).catch(() => null);
            if (res?.status === 201) {
              acknowledged.push(name);
              if (++acks >= killAt) kill();
            }
          }
        };
        await Promise.all(Array.from({ length: 8 }, worker));
        clearTimeout(deadline);
        await exited;
        const db = JSON.parse(await readFile(path.join(dataDir, 'db.json'), 'utf8')) as { roles: { name: string }[] };
        const present = new Set(db.roles.map((r) => r.name));
        const lost = acknowledged.filter((name) => !present.has(name));
        expect({ cycle, lost }).toEqual({ cycle, lost: [] });
      }
      expect(acknowledged.length).toBeGreaterThan(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 600_000);
});

describe('a disk that fails writes or fsyncs', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterEach(() => {
    disarmFailpoint('store.write');
    disarmFailpoint('store.fsync');
    disarmFailpoint('store.rename');
  });
  afterAll(() => t.close());

  for (const [point, code, status] of [
    ['store.fsync', 'EIO', 500],
    ['store.write', 'ENOSPC', 507],
    ['store.fsync', 'ENOSPC', 507],
    ['store.rename', 'EIO', 500],
  ] as const) {
    it(`${code} at ${point}: the request fails with ${status}, memory matches the disk, nothing is retried later`, async () => {
      const name = `f_${point.replace('.', '_')}_${code}`;
      const before = await readFile(path.join(t.dataDir, 'db.json'), 'utf8');
      armFailpoint(point, code);
      const res = await t.api('POST', '/api/role/create', { name, maxStorage: '1', badge: 'https://example.com/x.png' });
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(status === 507 ? 'disk_full' : 'internal');
      expect((await t.api('GET', '/api/role', { name })).status).toBe(404);
      expect(await readFile(path.join(t.dataDir, 'db.json'), 'utf8')).toBe(before);
      disarmFailpoint(point);
      expect(
        (await t.api('POST', '/api/role/create', { name: `${name}_next`, maxStorage: '1', badge: 'https://example.com/x.png' })).status,
      ).toBe(201);
      const db = await readFile(path.join(t.dataDir, 'db.json'), 'utf8');
      expect(db).toContain(`${name}_next`);
      expect(db).not.toContain(`"${name}"`);
    });
  }
});

describe('a registration whose record cannot be written', () => {
  it('leaves no directory behind, so the name can be registered once the disk is back', async () => {
    const t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open', NIMBUS_KEYCHAIN: 'off' } });
    try {
      const body = { username: 'newcomer', email: 'n@example.com', password: 'Newcomer-pw-8812' };
      armFailpoint('store.write', 'ENOSPC');
      try {
        const failed = await call(t, '/api/auth/register', { body });
        expect(failed.status, failed.text).toBe(507);
      } finally {
        disarmFailpoint('store.write');
      }
      expect(await readdir(path.join(t.dataDir, 'storage'))).not.toContain('newcomer');
      const again = await call(t, '/api/auth/register', { body });
      expect(again.status, again.text).toBe(201);
    } finally {
      await t.close();
    }
  });
});

describe('a damaged db.json', () => {
  const damages: [string, (good: string) => string | Buffer][] = [
    ['truncated', (good) => good.slice(0, Math.floor(good.length / 2))],
    ['empty', () => ''],
    ['NUL-filled', (good) => Buffer.alloc(good.length)],
    ['half-written object', () => '{"schema":1,"users":['],
    ['not a Nimbus store', () => '{"hello":"world"}'],
  ];
  for (const [label, damage] of damages) {
    it(`(${label}) stops start-up with a message naming it and its backup, and is kept as it was`, async () => {
      const t = await startTestDaemon();
      await t.api('POST', '/api/user/create', { username: 'keepme', email: 'k@example.com', password: 'password1' });
      await t.stop();
      const file = path.join(t.dataDir, 'db.json');
      const damaged = damage(await readFile(file, 'utf8'));
      await writeFile(file, damaged);
      await expect(t.restart()).rejects.toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*db\\.json\\.bak`, 's'));
      expect(Buffer.compare(await readFile(file), Buffer.from(damaged))).toBe(0);
      // The backup is the last good state: moving it into place brings everything back.
      await writeFile(file, await readFile(`${file}.bak`));
      await t.restart();
      expect((await t.api('GET', '/api/user', { username: 'keepme' })).status).toBe(200);
      await t.close();
    });
  }
});

describe('concurrent mutations of one user', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
    await t.api('POST', '/api/role/create', { name: 'pro', maxStorage: '10', badge: 'https://example.com/p.png' });
    for (let i = 0; i < 50; i++)
      await t.api('POST', '/api/role/create', { name: `r${i}`, maxStorage: '1', badge: 'https://example.com/p.png' });
  });
  afterAll(() => t.close());

  it('50 edits racing one role change: the role change is never lost', async () => {
    await t.api('POST', '/api/user/create', { username: 'race', email: 'race@example.com', password: 'password1' });
    const calls = [
      ...Array.from({ length: 50 }, (_, i) =>
        t.api('POST', '/api/user/edit', {
          username: 'race',
          newusername: 'race',
          newemail: `e${i}@example.com`,
          newpassword: `password-${i}`,
        }),
      ),
      t.api('POST', '/api/user/role', { username: 'race', name: 'pro' }),
    ];
    const results = await Promise.all(calls);
    expect(results.every((r) => r.status === 201)).toBe(true);
    const user = (await t.api('GET', '/api/user', { username: 'race' })).body;
    expect(user.role).toBe('pro');
    expect(user.email).toMatch(/^e\d+@example\.com$/);
  });

  it('one edit racing 50 role changes: the edit is never lost', async () => {
    await t.api('POST', '/api/user/create', { username: 'race2', email: 'old@example.com', password: 'password1' });
    const results = await Promise.all([
      ...Array.from({ length: 50 }, (_, i) => t.api('POST', '/api/user/role', { username: 'race2', name: `r${i}` })),
      t.api('POST', '/api/user/edit', { username: 'race2', newusername: 'race2', newemail: 'new@example.com', newpassword: 'password2' }),
    ]);
    expect(results.every((r) => r.status === 201)).toBe(true);
    const user = (await t.api('GET', '/api/user', { username: 'race2' })).body;
    expect(user.email).toBe('new@example.com');
    expect(user.role).toMatch(/^r\d+$/);
  });

  it('a rename racing a role change ends in one of the two serial orders', async () => {
    await t.api('POST', '/api/user/create', { username: 'race3', email: 'r3@example.com', password: 'password1' });
    const [rename, role] = await Promise.all([
      t.api('POST', '/api/user/edit', { username: 'race3', newusername: 'race3b', newemail: 'r3@example.com', newpassword: 'password1' }),
      t.api('POST', '/api/user/role', { username: 'race3', name: 'pro' }),
    ]);
    expect(rename.status).toBe(201);
    const renamed = (await t.api('GET', '/api/user', { username: 'race3b' })).body;
    // Role first, then rename: the renamed user has the role. Rename first: the role change found no user.
    if (role.status === 201) expect(renamed.role).toBe('pro');
    else expect(role.status).toBe(404);
    expect((await t.api('GET', '/api/user', { username: 'race3' })).status).toBe(404);
    const db = JSON.parse(await readFile(path.join(t.dataDir, 'db.json'), 'utf8')) as { users: { username: string; role: string }[] };
    expect(db.users.find((u) => u.username === 'race3b')?.role).toBe(renamed.role);
  });
});
