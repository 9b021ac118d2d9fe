/**
 * The rules a resumable upload (docs/uploads.md) shares with files.upload, black-box: who may
 * (keys, sessions, the cross-site rule, another user's tree, NIMBUS_REQUIRE_VERIFIED), where
 * (names checked, case twins, overwrite keeping the share link, a folder deleted meanwhile),
 * and the quota: held from Upload-Length at creation (507), freed by termination, by expiry
 * and by the placement, and held again after a restart.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { codeOf, makeKey, makeUser, signIn, passwordOf, userSession } from '../helpers/accounts.js';
import { createUser, startTestDaemon, storedBytes, upload, type TestDaemon } from '../helpers/daemon.js';
import { create, head, leftovers, locationOf, patch, terminate, tus } from '../helpers/tus.js';

let t: TestDaemon;
const KB700 = 700_000;
const bytes = (n: number, fill = 97) => Buffer.alloc(n, fill);

beforeAll(async () => {
  t = await startTestDaemon();
  await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
  for (const name of ['ana', 'bob', 'tiny']) await makeUser(t, name);
  await t.api('POST', '/api/user/role', { username: 'tiny', name: 'small' });
});
afterAll(() => t.close());

describe('who may upload', () => {
  it('no credential is 401, a wrong key 401, a read key 403', async () => {
    const meta = { username: 'ana', filename: 'a.bin' };
    expect((await create(t, meta, 3, undefined, { key: null })).status).toBe(401);
    expect((await create(t, meta, 3, undefined, { key: 'wrong-key-0123456789' })).status).toBe(401);
    const cookie = await signIn(t, 'ana', passwordOf('ana'));
    const reader = await makeKey(t, { cookie }, 'reader', 'read');
    const res = await create(t, meta, 3, undefined, { key: reader });
    expect([res.status, codeOf(res)]).toEqual([403, 'insufficient_scope']);
    expect((await leftovers(t)).tus).toEqual([]);
  });

  it("a user's key or session uploads into their own tree; another user's name is 404 user_not_found", async () => {
    const cookie = await signIn(t, 'ana', passwordOf('ana'));
    const key = await makeKey(t, { cookie }, 'writer', 'write');
    const other = await create(t, { username: 'bob', filename: 'x.bin' }, 3, undefined, { key });
    expect([other.status, codeOf(other)]).toEqual([404, 'user_not_found']);
    const mine = await create(t, { username: 'ana', filename: 'by-key.bin' }, 3, bytes(3), { key });
    expect(mine.status).toBe(201);
    const bySession = await create(t, { username: 'ana', filename: 'by-session.bin' }, 3, bytes(3), { cookie, origin: t.url });
    expect(bySession.status).toBe(201);
    expect((await storedBytes(t, 'ana', 'by-session.bin')).length).toBe(3);
  });

  it('another user cannot see, write or end an upload: 404 as one that does not exist', async () => {
    const location = locationOf(await create(t, { username: 'ana', filename: 'private.bin' }, 10, bytes(2)));
    const bob = await signIn(t, 'bob', passwordOf('bob'));
    const as = { cookie: bob, origin: t.url };
    expect((await head(t, location, as)).status).toBe(404); // a HEAD has no body to name the code
    for (const res of [await patch(t, location, 2, bytes(2), as), await terminate(t, location, as)])
      expect([res.status, codeOf(res)]).toEqual([404, 'upload_not_found']);
    expect((await head(t, location)).headers['upload-offset']).toBe('2');
  });

  it('a session from another site is refused as the API refuses it (403 cross_site_request)', async () => {
    const cookie = await signIn(t, 'ana', passwordOf('ana'));
    const res = await create(t, { username: 'ana', filename: 'csrf.bin' }, 3, bytes(3), { cookie, origin: 'http://evil.example' });
    expect([res.status, codeOf(res)]).toEqual([403, 'cross_site_request']);
    const location = locationOf(await create(t, { username: 'ana', filename: 'csrf2.bin' }, 6, bytes(3), { cookie, origin: t.url }));
    const patched = await patch(t, location, 3, bytes(3), { cookie, origin: 'http://evil.example' });
    expect([patched.status, codeOf(patched)]).toEqual([403, 'cross_site_request']);
    expect((await head(t, location)).headers['upload-offset']).toBe('3');
  });
});

describe('where it goes', () => {
  it('names and metadata are checked as files.upload checks them (400)', async () => {
    const bad: Record<string, string>[] = [
      { username: 'ana', filename: '../escape' },
      { username: 'ana', filename: 'a/b' },
      { username: 'ana' },
      { filename: 'x.bin' },
      { username: 'not a name', filename: 'x.bin' },
      { username: 'ana', filename: 'x.bin', folder: '../..' },
      { username: 'ana', filename: 'x.bin', overwrite: 'maybe' },
    ];
    const before = await leftovers(t);
    for (const meta of bad) expect([meta, (await create(t, meta, 3)).status]).toEqual([meta, 400]);
    const malformed = await tus(t, 'POST', '/api/uploads/', { 'Upload-Length': '3', 'Upload-Metadata': 'username !!!,filename eA==' });
    expect(malformed.status).toBe(400);
    expect(await leftovers(t)).toEqual(before);
  });

  it('a missing folder is 404, a taken name 409, a case twin 409', async () => {
    expect((await create(t, { username: 'ana', folder: 'nope', filename: 'x.bin' }, 3)).status).toBe(404);
    await upload(t, 'ana', 'Report.txt', 'first');
    const taken = await create(t, { username: 'ana', filename: 'Report.txt' }, 3);
    expect([taken.status, codeOf(taken)]).toEqual([409, 'file_exists']);
    const twin = await create(t, { username: 'ana', filename: 'report.txt' }, 3);
    expect([twin.status, codeOf(twin)]).toEqual([409, 'name_case_conflict']);
  });

  it('a case twin that came in while the upload was unfinished is refused at the end, leaving nothing', async () => {
    const location = locationOf(await create(t, { username: 'ana', filename: 'Late.txt' }, 6, bytes(3)));
    await upload(t, 'ana', 'late.txt', 'quick');
    const res = await patch(t, location, 3, bytes(3));
    expect([res.status, codeOf(res)]).toEqual([409, 'name_case_conflict']);
    expect((await head(t, location)).status).toBe(404);
    expect((await leftovers(t)).tmp).toEqual([]);
  });

  it('overwrite=true replaces the file, which keeps its share link', async () => {
    await upload(t, 'ana', 'shared.txt', 'old');
    expect((await t.api('POST', '/api/files/share', { username: 'ana', file: 'shared.txt' })).status).toBe(201);
    const res = await create(t, { username: 'ana', filename: 'shared.txt', overwrite: 'true' }, 3, Buffer.from('new'));
    expect(res.status).toBe(201);
    expect((await storedBytes(t, 'ana', 'shared.txt')).toString()).toBe('new');
    const shares = await t.api('GET', '/api/shares', { username: 'ana' });
    expect(JSON.stringify(shares.body)).toContain('shared.txt');
  });
});

describe('quota', () => {
  it('is held from Upload-Length at creation (507 when it does not fit) and freed by termination', async () => {
    const first = locationOf(await create(t, { username: 'tiny', filename: 'one.bin' }, KB700));
    const refused = await create(t, { username: 'tiny', filename: 'two.bin' }, KB700);
    expect([refused.status, codeOf(refused)]).toEqual([507, 'quota_exceeded']);
    // files.upload sees the hold too.
    expect((await t.api('POST', '/api/files/upload', { username: 'tiny', file: 'plain.bin' }, { body: bytes(KB700) })).status).toBe(507);
    expect((await terminate(t, first)).status).toBe(204);
    const second = locationOf(await create(t, { username: 'tiny', filename: 'two.bin' }, KB700));
    await terminate(t, second);
  });

  it('an upload finished into a folder deleted meanwhile is a 404, leaves nothing and frees its quota', async () => {
    await t.api('POST', '/api/folders/create', { username: 'tiny', folder: 'work' });
    const location = locationOf(await create(t, { username: 'tiny', folder: 'work', filename: 'w.bin' }, KB700, bytes(1000)));
    expect((await t.api('POST', '/api/folders/delete', { username: 'tiny', folder: 'work', permanent: 'true' })).status).toBe(200);
    const res = await patch(t, location, 1000, bytes(KB700 - 1000));
    expect([res.status, codeOf(res)]).toEqual([404, 'folder_not_found']);
    expect((await head(t, location)).status).toBe(404);
    expect((await leftovers(t)).tmp).toEqual([]);
    expect((await leftovers(t)).tus.filter((n) => n.startsWith(location.slice(-32)))).toEqual([]);
    const again = locationOf(await create(t, { username: 'tiny', filename: 'again.bin' }, KB700));
    await terminate(t, again);
  });

  it('survives a restart: the offset and the hold are kept', async () => {
    const location = locationOf(await create(t, { username: 'tiny', filename: 'kept.bin' }, KB700, bytes(KB700 / 2, 98)));
    await t.stop();
    await t.restart();
    expect((await head(t, location)).headers['upload-offset']).toBe(String(KB700 / 2));
    expect((await create(t, { username: 'tiny', filename: 'other.bin' }, KB700)).status).toBe(507);
    expect((await patch(t, location, KB700 / 2, bytes(KB700 / 2, 99))).status).toBe(204);
    const stored = await storedBytes(t, 'tiny', 'kept.bin');
    expect([stored.length, stored[0], stored[KB700 - 1]]).toEqual([KB700, 98, 99]);
  });
});

describe('unfinished uploads', () => {
  it('are 100 at most per user (429); finishing or ending one makes room', async () => {
    await makeUser(t, 'many');
    const made = await Promise.all(Array.from({ length: 100 }, (_, i) => create(t, { username: 'many', filename: `p${i}.bin` }, 2)));
    expect(made.map((res) => res.status)).toEqual(Array(100).fill(201));
    const refused = await create(t, { username: 'many', filename: 'one-more.bin' }, 2);
    expect([refused.status, codeOf(refused)]).toEqual([429, 'too_many_requests']);
    expect((await create(t, { username: 'ana', filename: 'others-are-not-counted.bin' }, 1, bytes(1))).status).toBe(201);
    expect((await patch(t, locationOf(made[0]), 0, bytes(2))).status).toBe(204);
    expect((await create(t, { username: 'many', filename: 'one-more.bin' }, 2)).status).toBe(201);
  });
});

describe('expiry', () => {
  let short: TestDaemon;
  beforeAll(async () => {
    // 1.8 s: swept every second.
    short = await startTestDaemon({ env: { NIMBUS_UPLOAD_EXPIRY_HOURS: '0.0005' } });
    await short.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
    await createUser(short, 'tiny');
    await short.api('POST', '/api/user/role', { username: 'tiny', name: 'small' });
  });
  afterAll(() => short?.close());

  it('an unfinished upload expires: its bytes go, its quota is freed, its HEAD is 404/410', async () => {
    const created = await create(short, { username: 'tiny', filename: 'slow.bin' }, KB700, bytes(10));
    const expires = Date.parse(String(created.headers['upload-expires']));
    expect(expires - Date.now()).toBeLessThan(2000);
    expect((await create(short, { username: 'tiny', filename: 'blocked.bin' }, KB700)).status).toBe(507);
    await vi.waitFor(async () => expect((await leftovers(short)).tus).toEqual([]), { timeout: 6000, interval: 200 });
    expect([404, 410]).toContain((await head(short, locationOf(created))).status);
    expect((await create(short, { username: 'tiny', filename: 'fits.bin' }, KB700)).status).toBe(201);
  });
});

describe('NIMBUS_REQUIRE_VERIFIED=1', () => {
  it('an unverified user may not create or PATCH an upload (403 email_not_verified)', async () => {
    const strict = await startTestDaemon({ env: { NIMBUS_REQUIRE_VERIFIED: '1' } });
    try {
      const cookie = await userSession(strict, 'ana');
      const res = await create(strict, { username: 'ana', filename: 'u.bin' }, 3, bytes(3), { cookie, origin: strict.url });
      expect([res.status, codeOf(res)]).toEqual([403, 'email_not_verified']);
      expect((await create(strict, { username: 'ana', filename: 'by-admin.bin' }, 3, bytes(3))).status).toBe(201);
    } finally {
      await strict.close();
    }
  });
});
