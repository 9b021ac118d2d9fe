/**
 * Two whole daemons on one PostgreSQL database and one bucket (issue 14, docs/cluster.md):
 * what one is told, the other serves. Upload through A, download (whole and ranged) and list
 * through B; a rename through B touches rows only (the bucket's object count stays); B's
 * event stream carries A's upload; a quota raced from both is never passed; sessions, users,
 * key revocations and share links made on one hold on the other. Then a daemon killed
 * (SIGKILL, a child process) in the middle of uploads: the other keeps serving, no row is left
 * without its bytes, and an orphan object is swept by a daemon that starts.
 *
 * What B learns from A comes through PostgreSQL's notifications: soon, not at once. Each test
 * waits for the sign that B knows (an event, a listing) before asserting on B, and asserts
 * what must hold in the window too (a refused key is never served again once refused).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeKey, makeUser, passwordOf, setRole, signIn } from '../helpers/accounts.js';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { bucketOf, eventually, openEvents, type Bucket } from '../helpers/cluster.js';
import { startTestDaemon, TEST_KEY, upload, type TestDaemon } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';

const KIB = 1024;
const MIB = 1024 * KIB;

/** The names and sizes B lists for a user at the root. */
async function listed(t: TestDaemon, username: string): Promise<Map<string, number>> {
  const res = await t.api('GET', '/api/files', { username });
  if (res.status !== 200) throw new Error(`listing ${username}: ${res.status} ${res.text}`);
  return new Map((res.body.files as { name: string; size: number }[]).map((f) => [f.name, f.size]));
}

describe('two daemons on one database and one bucket', () => {
  let env: Record<string, string>;
  let a: TestDaemon;
  let b: TestDaemon;
  let bucket: Bucket;

  beforeAll(async () => {
    env = await clusterEnv();
    // The same env for both: one database, one bucket. `embedded` keeps the helper from making fresh ones.
    a = await startTestDaemon({ env, backend: 'embedded' });
    b = await startTestDaemon({ env, backend: 'embedded' });
    bucket = bucketOf(env);
    await makeUser(a, 'ana');
    await eventually('B knows ana', async () => (await b.api('GET', '/api/user', { username: 'ana' })).status === 200);
  }, 120_000);

  afterAll(async () => {
    bucket?.close();
    await a?.close();
    await b?.close();
  });

  it('serves through B, whole and ranged, what was uploaded through A, and B’s event stream shows it', async () => {
    const events = await openEvents(b.url, b.key);
    try {
      const content = randomBytes(3 * MIB + 17);
      await upload(a, 'ana', 'photo.bin', content);
      await events.waitFor(/event: file\.\w+\ndata: \{[^\n]*"username":"ana"[^\n]*"file":"photo\.bin"/);
    } finally {
      events.close();
    }
    // Once B's stream has the event, B's index has the file.
    expect((await listed(b, 'ana')).get('photo.bin')).toBe(3 * MIB + 17);
  });

  it('downloads through B the bytes uploaded through A, whole and ranged', async () => {
    const content = randomBytes(2 * MIB + 5);
    await upload(a, 'ana', 'ranged.bin', content);
    await eventually('B lists ranged.bin', async () => (await listed(b, 'ana')).has('ranged.bin'));
    const whole = await fetch(`${b.url}/api/files/download?username=ana&file=ranged.bin`, { headers: { 'API-Key': b.key } });
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(content)).toBe(true);
    const part = await fetch(`${b.url}/api/files/download?username=ana&file=ranged.bin`, {
      headers: { 'API-Key': b.key, Range: `bytes=${MIB - 3}-${MIB + 99}` },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('Content-Range')).toBe(`bytes ${MIB - 3}-${MIB + 99}/${2 * MIB + 5}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(content.subarray(MIB - 3, MIB + 100))).toBe(true);
  });

  it('renames through B without touching the bucket: same objects, the new name served by A', async () => {
    await upload(a, 'ana', 'before.txt', 'renamed bytes');
    await eventually('B lists before.txt', async () => (await listed(b, 'ana')).has('before.txt'));
    const objectsBefore = await bucket.keys();
    const res = await b.api('POST', '/api/files/rename', { username: 'ana', file: 'before.txt', newname: 'after.txt' });
    expect(res.status, res.text).toBe(201);
    expect(await bucket.keys()).toEqual(objectsBefore);
    await eventually('A lists after.txt', async () => {
      const names = await listed(a, 'ana');
      return names.has('after.txt') && !names.has('before.txt');
    });
    const got = await a.api('GET', '/api/files/download', { username: 'ana', file: 'after.txt' });
    expect(got.status).toBe(200);
    expect(got.text).toBe('renamed bytes');
    expect(await bucket.keys()).toEqual(objectsBefore);
  });

  it('never lets a quota raced from A and B be passed: the accepted bytes fit, the rest are 507', async () => {
    const role = await a.api('POST', '/api/role/create', { name: 'tiny', maxStorage: '1', badge: 'https://example.com/b.png' });
    expect(role.status, role.text).toBe(201);
    await makeUser(a, 'racer');
    await setRole(a, 'racer', 'tiny');
    // B must know the role before it is raced against (its notification, like any other).
    await eventually('B knows racer’s role', async () => {
      const res = await b.api('GET', '/api/user', { username: 'racer' });
      return res.status === 200 && JSON.stringify(res.body).includes('tiny');
    });
    const size = 100 * KIB;
    const uploads = Array.from({ length: 24 }, (_, i) => {
      const t = i % 2 === 0 ? a : b;
      return t.api('POST', '/api/files/upload', { username: 'racer', file: `r${i}.bin` }, { body: new Uint8Array(randomBytes(size)) });
    });
    const results = await Promise.all(uploads);
    for (const res of results) expect([201, 507], res.text).toContain(res.status);
    const accepted = results.filter((r) => r.status === 201).length;
    expect(accepted * size).toBeLessThanOrEqual(MIB);
    expect(accepted).toBeGreaterThan(0);
    // What both daemons list is exactly what was accepted, and fits too.
    for (const t of [a, b]) {
      const names = await eventually(`${t === a ? 'A' : 'B'} lists every accepted upload`, async () => {
        const files = await listed(t, 'racer');
        return files.size === accepted ? files : undefined;
      });
      expect([...names.values()].reduce((sum, n) => sum + n, 0)).toBe(accepted * size);
    }
  });

  it('takes on B a session signed in on A, once B has A’s notification', async () => {
    await makeUser(a, 'sess');
    const cookie = await signIn(a, 'sess', passwordOf('sess'));
    const me = await eventually('B takes the session', async () => {
      const res = await call(b, '/api/auth/me', { cookie });
      return res.status === 200 ? res : undefined;
    });
    expect(me.body.user.username).toBe('sess');
  });

  // A session is looked up in the daemon's own Map, which hears of A's new session through
  // PostgreSQL's notification; B catches up before refusing a cookie it does not know, so a
  // sign-in on A and the next request on B (a balancer without sticky sessions) never sign the
  // user out. Ten sign-ins, each used on B at once, so the window is hit every run.
  it('takes on B, at once, a session signed in on A, and never clears its cookie', async () => {
    await makeUser(a, 'hasty');
    for (let i = 0; i < 10; i++) {
      const cookie = await signIn(a, 'hasty', passwordOf('hasty'));
      const me = await call(b, '/api/auth/me', { cookie });
      expect(me.headers['set-cookie'], 'B cleared the cookie of a session it did not know yet').toBeUndefined();
      expect(me.status, me.text).toBe(200);
    }
  });

  // The same window for a key and a file: B, not knowing what A just committed, catches up
  // (Store.catchUp) before answering 401 or 404. Ten tries each, so the window is hit every run.
  it('takes on B, at once, a key made on A', async () => {
    await makeUser(a, 'quickkey');
    const cookie = await signIn(a, 'quickkey', passwordOf('quickkey'));
    for (let i = 0; i < 10; i++) {
      const key = await makeKey(a, { cookie }, `k${i}`, 'write');
      const me = await call(b, '/api/auth/me', { key });
      expect(me.status, me.text).toBe(200);
    }
  });

  it('downloads through B, at once, a file A has just answered 201 for', async () => {
    for (let i = 0; i < 10; i++) {
      await upload(a, 'ana', `at-once${i}.txt`, `bytes ${i}`);
      const got = await b.api('GET', '/api/files/download', { username: 'ana', file: `at-once${i}.txt` });
      expect(got.status, got.text).toBe(200);
    }
  });

  it('shows on B a user created on A', async () => {
    await makeUser(a, 'newcomer');
    const res = await eventually('B knows newcomer', async () => {
      const got = await b.api('GET', '/api/user', { username: 'newcomer' });
      return got.status === 200 ? got : undefined;
    });
    expect(JSON.stringify(res.body)).toContain('newcomer@example.com');
  });

  it('refuses on B a key deleted on A, and never serves it again once refused', async () => {
    await makeUser(a, 'keyed');
    const cookie = await signIn(a, 'keyed', passwordOf('keyed'));
    const key = await makeKey(a, { cookie }, 'laptop', 'write');
    const me = () => call(b, '/api/auth/me', { key });
    await eventually('B takes the new key', async () => (await me()).status === 200);
    const deleted = await call(a, '/api/keys/delete', { cookie, body: { label: 'laptop' } });
    expect(deleted.status, deleted.text).toBe(200);
    await eventually('B refuses the deleted key', async () => (await me()).status === 401);
    for (let i = 0; i < 5; i++) expect((await me()).status).toBe(401);
    // A refuses it at once: the deletion is its own.
    expect((await call(a, '/api/auth/me', { key })).status).toBe(401);
  });

  it('serves through B a share link made through A', async () => {
    await upload(a, 'ana', 'shared.txt', 'shared bytes');
    const shared = await a.api('POST', '/api/files/share', { username: 'ana', file: 'shared.txt' });
    expect(shared.status, shared.text).toBe(201);
    const token = new URL(shared.body.file.shareUrl as string).pathname.split('/').pop()!;
    const res = await eventually('B serves the link', async () => {
      const got = await fetch(`${b.url}/s/${token}?download=1`);
      return got.status === 200 ? got : undefined;
    });
    expect(await res.text()).toBe('shared bytes');
  });
});

describe('a daemon killed (SIGKILL) in the middle of uploads', () => {
  let env: Record<string, string>;
  let dataDirA = '';
  let killed: (CliRun & { url: string }) | undefined;
  let b: TestDaemon;
  let c: TestDaemon | undefined;
  let bucket: Bucket;

  beforeAll(async () => {
    // The sweeper of a daemon that starts takes orphans older than a second (not an hour).
    env = { ...(await clusterEnv()), NIMBUS_ORPHAN_MIN_AGE_SECONDS: '1' };
    dataDirA = await mkdtemp(path.join(os.tmpdir(), 'nimbus-killed-'));
    killed = await spawnDaemon(dataDirA, childEnv({ ...env, NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off' }));
    b = await startTestDaemon({ env, backend: 'embedded' });
    bucket = bucketOf(env);
    await makeUser(b, 'ana');
  }, 120_000);

  afterAll(async () => {
    bucket?.close();
    if (killed && killed.child.exitCode === null && killed.child.signalCode === null) {
      killed.child.kill('SIGKILL');
      await killed.exited;
    }
    await b?.close();
    await c?.close();
    if (dataDirA) await rm(dataDirA, { recursive: true, force: true });
  });

  it('leaves B serving, every listed file whole, and the orphans swept by a daemon that starts', async () => {
    const a = killed!;
    await eventually('A knows ana', async () => {
      const res = await fetch(`${a.url}/api/user?username=ana`, { headers: { 'API-Key': TEST_KEY } });
      return res.status === 200;
    });
    // Several uploads to A, each sent in pieces and left unfinished, plus a few that finish.
    const size = 8 * MIB;
    const done: Promise<number>[] = [];
    for (let i = 0; i < 3; i++) {
      done.push(
        fetch(`${a.url}/api/files/upload?username=ana&file=whole${i}.bin`, {
          method: 'POST',
          headers: { 'API-Key': TEST_KEY },
          body: new Uint8Array(randomBytes(MIB)),
        }).then((r) => r.status),
      );
    }
    expect(await Promise.all(done)).toEqual([201, 201, 201]);
    const halfSent: Promise<unknown>[] = [];
    let sentEnough: () => void;
    const enough = new Promise<void>((resolve) => (sentEnough = resolve));
    let sent = 0;
    for (let i = 0; i < 4; i++) {
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          // 6 MiB of 8 are sent, then the stream waits: the upload is in flight when A dies.
          if (sent >= 6 * MIB * 4) {
            sentEnough();
            await new Promise(() => undefined);
          }
          controller.enqueue(new Uint8Array(randomBytes(MIB)));
          sent += MIB;
        },
      });
      halfSent.push(
        fetch(`${a.url}/api/files/upload?username=ana&file=cut${i}.bin`, {
          method: 'POST',
          headers: { 'API-Key': TEST_KEY, 'Content-Length': String(size) },
          body,
          duplex: 'half',
        } as RequestInit).catch((err: Error) => err),
      );
    }
    await enough;
    a.child.kill('SIGKILL');
    expect(await a.exited).toBe('SIGKILL');
    await Promise.all(halfSent);

    // B goes on: it lists, uploads and downloads.
    await upload(b, 'ana', 'after-kill.txt', 'still here');
    const files = await eventually('B lists the finished uploads', async () => {
      const list = await listed(b, 'ana');
      return ['whole0.bin', 'whole1.bin', 'whole2.bin', 'after-kill.txt'].every((n) => list.has(n)) ? list : undefined;
    });
    // No row without its bytes: every file B lists downloads with its listed size.
    for (const [name, listedSize] of files) {
      const res = await fetch(`${b.url}/api/files/download?username=ana&file=${encodeURIComponent(name)}`, {
        headers: { 'API-Key': b.key },
      });
      expect(res.status, name).toBe(200);
      expect((await res.arrayBuffer()).byteLength, name).toBe(listedSize);
    }
    expect(
      [...files.keys()].filter((n) => n.startsWith('cut')),
      'an unfinished upload has no row',
    ).toEqual([]);

    // An orphan put behind the daemons' backs (as a crash between the object and its row leaves one).
    const orphan = `files/${randomBytes(16).toString('hex')}`;
    await bucket.put(orphan, 'nobody names me');
    expect(await bucket.keys()).toContain(orphan);
    // Older than NIMBUS_ORPHAN_MIN_AGE_SECONDS (1 s) by the bucket's clock: Swift's S3 layer gives
    // LastModified rounded UP to the second, so an object can look up to a second younger than it is.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // A daemon that starts sweeps at once (the sweeper's advisory lock: one daemon at a time).
    c = await startTestDaemon({ env, backend: 'embedded' });
    await eventually('the orphan is swept', async () => !(await bucket.keys()).includes(orphan), 60_000);
    // What rows name is kept: every listed file still downloads whole.
    for (const [name, listedSize] of await listed(c, 'ana')) {
      const res = await fetch(`${c.url}/api/files/download?username=ana&file=${encodeURIComponent(name)}`, {
        headers: { 'API-Key': c.key },
      });
      expect(res.status, name).toBe(200);
      expect((await res.arrayBuffer()).byteLength, name).toBe(listedSize);
    }
    // The cut uploads' objects (if any reached the bucket) are orphans too: none is left once swept.
    const rowsNamed = (await listed(c, 'ana')).size;
    expect((await bucket.keys()).length).toBe(rowsNamed);
  }, 300_000);
});
