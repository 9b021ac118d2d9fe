/**
 * One user cannot reach another's things by any URL (docs/accounts.md, "Audiences"): every
 * `self` row naming another user answers exactly as for a user that does not exist (404
 * user_not_found, same body), by session and by personal key; admin rows answer 403
 * admin_only; a user cannot raise their own role, quota or key scope; public share links
 * stay public; a user's event stream carries only their own events.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listTree, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream, type EventStream } from '../helpers/events.js';
import { call, codeOf, COOKIE, makeKey, passwordOf, show, uploadAs, userSession, type Cred, type Resp } from '../helpers/accounts.js';

let t: TestDaemon;
let annCookie: string;
let bobCookie: string;
let annWrite: string;
let annRead: string;
let bobKey: string;
let bobShare: string;

beforeAll(async () => {
  t = await startTestDaemon();
  annCookie = await userSession(t, 'ann');
  bobCookie = await userSession(t, 'bob');
  annWrite = await makeKey(t, { cookie: annCookie }, 'ann-write', 'write');
  annRead = await makeKey(t, { cookie: annCookie }, 'ann-read', 'read');
  bobKey = await makeKey(t, { cookie: bobCookie }, 'bob-key', 'write');
  const admin = { key: t.key };
  for (const [file, folder] of [
    ['b.txt', undefined],
    ['shared.txt', undefined],
    ['in.txt', 'Bfolder'],
  ] as const) {
    if (folder) await call(t, '/api/folders/create', { ...admin, body: { username: 'bob', folder } });
    const res = await uploadAs(t, admin, 'bob', file, `BOB-SECRET ${file}`, folder ? { folder } : {});
    expect(res.status, show(res)).toBe(201);
  }
  const shared = await call(t, '/api/files/share', { ...admin, body: { username: 'bob', file: 'shared.txt' } });
  bobShare = new URL(shared.body.file.shareUrl).pathname;
  await uploadAs(t, admin, 'ann', 'a.txt', 'ann’s a.txt');
});
afterAll(() => t.close());

interface Probe {
  id: string;
  method: 'GET' | 'POST';
  path: string;
  params: (username: string) => Record<string, string>;
  /** Changes something (a read key is refused with 403 insufficient_scope first). */
  writes: boolean;
  /** Raw body content (upload). */
  content?: string;
}

/** Every `self` row, with parameters that would succeed against bob's things. */
const SELF_PROBES: Probe[] = [
  { id: 'user.get', method: 'GET', path: '/api/user', params: (u) => ({ username: u }), writes: false },
  {
    id: 'user.edit',
    method: 'POST',
    path: '/api/user/edit',
    params: (u) => ({ username: u, newusername: u, newemail: 'took@evil.example' }),
    writes: true,
  },
  { id: 'user.verify', method: 'POST', path: '/api/user/verify', params: (u) => ({ username: u }), writes: true },
  { id: 'folders.list', method: 'GET', path: '/api/folders', params: (u) => ({ username: u }), writes: false },
  { id: 'folders.files', method: 'GET', path: '/api/folders/files', params: (u) => ({ username: u, folder: 'Bfolder' }), writes: false },
  { id: 'folders.create', method: 'POST', path: '/api/folders/create', params: (u) => ({ username: u, folder: 'planted' }), writes: true },
  { id: 'folders.delete', method: 'POST', path: '/api/folders/delete', params: (u) => ({ username: u, folder: 'Bfolder' }), writes: true },
  {
    id: 'folders.files.rename',
    method: 'POST',
    path: '/api/folders/files/rename',
    params: (u) => ({ username: u, folder: 'Bfolder', file: 'in.txt', newname: 'moved.txt' }),
    writes: true,
  },
  {
    id: 'folders.files.delete',
    method: 'POST',
    path: '/api/folders/files/delete',
    params: (u) => ({ username: u, folder: 'Bfolder', file: 'in.txt' }),
    writes: true,
  },
  { id: 'files.list', method: 'GET', path: '/api/files', params: (u) => ({ username: u }), writes: false },
  { id: 'files.list folder', method: 'GET', path: '/api/files', params: (u) => ({ username: u, folder: 'Bfolder' }), writes: false },
  { id: 'files.delete', method: 'POST', path: '/api/files/delete', params: (u) => ({ username: u, file: 'b.txt' }), writes: true },
  {
    id: 'files.rename',
    method: 'POST',
    path: '/api/files/rename',
    params: (u) => ({ username: u, file: 'b.txt', newname: 'c.txt' }),
    writes: true,
  },
  { id: 'files.share', method: 'POST', path: '/api/files/share', params: (u) => ({ username: u, file: 'b.txt' }), writes: true },
  { id: 'files.noshare', method: 'POST', path: '/api/files/noshare', params: (u) => ({ username: u, file: 'shared.txt' }), writes: true },
  {
    id: 'files.upload',
    method: 'POST',
    path: '/api/files/upload',
    params: (u) => ({ username: u, file: 'b.txt', overwrite: 'true' }),
    writes: true,
    content: 'overwritten by ann',
  },
  { id: 'files.download', method: 'GET', path: '/api/files/download', params: (u) => ({ username: u, file: 'b.txt' }), writes: false },
  {
    id: 'files.download folder',
    method: 'GET',
    path: '/api/files/download',
    params: (u) => ({ username: u, folder: 'Bfolder', file: 'in.txt' }),
    writes: false,
  },
];

function probe(p: Probe, cred: Cred, username: string, asBody = false): Promise<Resp> {
  const params = p.params(username);
  if (p.content !== undefined) return call(t, p.path, { ...cred, method: 'POST', query: params, body: p.content });
  if (p.method === 'POST' && asBody) return call(t, p.path, { ...cred, body: params });
  return call(t, p.path, { ...cred, method: p.method, query: params });
}

const callers = (): [string, Cred][] => [
  ['ann’s session', { cookie: annCookie }],
  ['ann’s write key', { key: annWrite }],
  ['ann’s read key', { key: annRead }],
];

const bobsThings = async () => ({
  tree: (await listTree(t.storageDir)).filter((p) => p.startsWith('bob')),
  user: (await call(t, '/api/user', { key: t.key, query: { username: 'bob' } })).body,
  files: (await call(t, '/api/files', { key: t.key, query: { username: 'bob' } })).body,
});

describe('another user’s name on every self row', () => {
  it('answers exactly as a user that does not exist (404 user_not_found), and bob’s things stay as they were', async () => {
    const before = await bobsThings();
    for (const [who, cred] of callers()) {
      for (const p of SELF_PROBES) {
        for (const asBody of p.method === 'POST' && p.content === undefined ? [false, true] : [false]) {
          const toBob = await probe(p, cred, 'bob', asBody);
          const toGhost = await probe(p, cred, 'ghost', asBody);
          const what = `${who} → ${p.id}${asBody ? ' (body)' : ''}`;
          if (cred.key === annRead && p.writes) {
            expect(toBob.status, `${what}: ${show(toBob)}`).toBe(403);
            expect(codeOf(toBob), what).toBe('insufficient_scope');
          } else {
            expect(toBob.status, `${what}: ${show(toBob)}`).toBe(404);
            expect(codeOf(toBob), what).toBe('user_not_found');
          }
          expect(toBob.text, `${what}: the same body as for a user that does not exist`).toBe(toGhost.text);
          expect(toBob.status, what).toBe(toGhost.status);
          expect(toBob.text, what).not.toContain('BOB-SECRET');
        }
      }
    }
    expect(await bobsThings()).toEqual(before);
  });

  it('answers the same for bob’s name in other spellings (case, padding)', async () => {
    for (const name of ['BOB', 'Bob', 'bob ', ' bob']) {
      for (const [who, cred] of callers()) {
        for (const id of ['files.download', 'files.list', 'user.get', 'files.delete']) {
          const p = SELF_PROBES.find((x) => x.id === id)!;
          const res = await probe(p, cred, name);
          const what = `${who} → ${id} as ${JSON.stringify(name)}`;
          expect([400, 403, 404], `${what}: ${show(res)}`).toContain(res.status);
          expect(res.text, what).not.toContain('BOB-SECRET');
        }
      }
    }
    expect((await call(t, '/api/files', { key: t.key, query: { username: 'bob' } })).body.files).toHaveLength(2);
  });

  it('cannot smuggle bob’s name past the check (query and body, repeated parameters)', async () => {
    const before = await bobsThings();
    const attempts: Resp[] = [
      await call(t, '/api/files/delete', { cookie: annCookie, query: { username: 'ann' }, body: { username: 'bob', file: 'b.txt' } }),
      await call(t, '/api/files/delete', { cookie: annCookie, query: { username: 'bob' }, body: { username: 'ann', file: 'b.txt' } }),
      await call(t, '/api/files/delete?username=ann&username=bob&file=b.txt', { cookie: annCookie, method: 'POST' }),
      await call(t, '/api/files/delete?username=bob&username=ann&file=b.txt', { cookie: annCookie, method: 'POST' }),
      await call(t, '/api/files/download?username=ann&username=bob&file=b.txt', { cookie: annCookie }),
      await call(t, '/api/files/delete', {
        cookie: annCookie,
        body: '{"username":"ann","username":"bob","file":"b.txt"}',
        headers: { 'Content-Type': 'application/json' },
      }),
    ];
    for (const res of attempts) {
      expect(res.status, show(res)).toBeGreaterThanOrEqual(400);
      expect(res.text).not.toContain('BOB-SECRET');
    }
    expect(await bobsThings()).toEqual(before);
  });

  it('cannot climb out of their own storage by folder or file names', async () => {
    for (const [folder, file] of [
      ['..', 'bob/b.txt'],
      ['../bob', 'b.txt'],
      ['..%2Fbob', 'b.txt'],
      [undefined, '../bob/b.txt'],
      [undefined, '..\\bob\\b.txt'],
    ] as const) {
      const query: Record<string, string> = { username: 'ann', file };
      if (folder) query.folder = folder;
      const res = await call(t, '/api/files/download', { cookie: annCookie, query });
      expect(res.status, `${folder}/${file}: ${show(res)}`).toBeGreaterThanOrEqual(400);
      expect(res.text).not.toContain('BOB-SECRET');
    }
  });

  it('a user reaches their own things by the same URLs (control)', async () => {
    const own = await call(t, '/api/files/download', { cookie: annCookie, query: { username: 'ann', file: 'a.txt' } });
    expect(own.status, show(own)).toBe(200);
    expect(own.text).toBe('ann’s a.txt');
    expect((await call(t, '/api/files/download', { key: annRead, query: { username: 'ann', file: 'a.txt' } })).status).toBe(200);
    expect((await call(t, '/api/user', { key: annWrite, query: { username: 'ann' } })).body.username).toBe('ann');
  });
});

describe('bob’s public share link', () => {
  it('still works for anyone: public is public', async () => {
    const anon = await call(t, bobShare);
    expect(anon.status, show(anon)).toBe(200);
    expect(anon.text).toBe('BOB-SECRET shared.txt');
    expect((await call(t, bobShare, { cookie: annCookie })).status).toBe(200);
  });
});

describe('admin rows for a non-admin', () => {
  const ADMIN_PROBES: [string, string, Record<string, string>?][] = [
    ['GET', '/api/user/all'],
    ['POST', '/api/user/create', { username: 'sock', email: 's@example.com', password: 'Sock-pw-88123' }],
    ['POST', '/api/user/delete', { username: 'bob' }],
    ['POST', '/api/user/delete', { username: 'ann' }],
    ['POST', '/api/user/role', { username: 'ann', name: 'admin' }],
    ['POST', '/api/user/role', { username: 'bob', name: 'admin' }],
    ['GET', '/api/role/all'],
    ['POST', '/api/role/create', { name: 'mine', maxStorage: '-1', badge: 'https://example.com/b.png' }],
    ['POST', '/api/role/edit', { name: 'user', newname: 'user', maxStorage: '-1', badge: 'https://example.com/b.png' }],
    ['POST', '/api/role/delete', { name: 'user' }],
    ['GET', '/api/dash'],
    ['POST', '/api/dash/rescan'],
  ];

  it('answers 403 admin_only for every one, by session and by personal write key, and changes nothing', async () => {
    const roleBefore = (await call(t, '/api/role', { key: t.key, query: { name: 'user' } })).body;
    for (const cred of [{ cookie: annCookie }, { key: annWrite }]) {
      for (const [method, path, params] of ADMIN_PROBES) {
        const res = method === 'GET' ? await call(t, path, { ...cred }) : await call(t, path, { ...cred, body: params ?? {} });
        const what = `${cred.cookie ? 'session' : 'write key'} ${method} ${path} ${JSON.stringify(params ?? {})}`;
        expect(res.status, `${what}: ${show(res)}`).toBe(403);
        expect(codeOf(res), what).toBe('admin_only');
      }
    }
    expect((await call(t, '/api/role', { key: t.key, query: { name: 'user' } })).body).toEqual(roleBefore);
    expect((await call(t, '/api/user', { key: t.key, query: { username: 'ann' } })).body.role).toBe('user');
    expect((await call(t, '/api/user', { key: t.key, query: { username: 'sock' } })).status).toBe(404);
    expect((await call(t, '/api/auth/me', { key: t.key })).status, 'the admin key still works').toBe(200);
  });

  it('answers keys.rotate 403 admin_key_only by session and by personal write key (the admin key’s own row)', async () => {
    for (const cred of [{ cookie: annCookie }, { key: annWrite }]) {
      const res = await call(t, '/api/keys/rotate', { ...cred, body: {} });
      expect([res.status, codeOf(res)], show(res)).toEqual([403, 'admin_key_only']);
    }
    expect((await call(t, '/api/auth/me', { key: t.key })).status, 'the admin key still works').toBe(200);
  });

  it('refuses user.edit with newusername or newpassword from a non-admin (403 admin_only), even for themselves', async () => {
    const attempts: Record<string, string>[] = [
      { username: 'ann', newusername: 'annie', newemail: 'ann@example.com' },
      { username: 'ann', newusername: 'ANN', newemail: 'ann@example.com' },
      { username: 'ann', newusername: 'ann', newemail: 'ann@example.com', newpassword: 'Self-set-pw-0001' },
    ];
    for (const params of attempts) {
      const res = await call(t, '/api/user/edit', { cookie: annCookie, body: params });
      expect(res.status, `${JSON.stringify(params)}: ${show(res)}`).toBe(403);
      expect(codeOf(res)).toBe('admin_only');
    }
    expect((await call(t, '/api/auth/me', { cookie: annCookie })).body.user.username).toBe('ann');
    const stillOld = await call(t, '/api/auth/login', { body: { username: 'ann', password: passwordOf('ann') }, from: '127.0.7.1' });
    expect(stillOld.status).toBe(200);
  });

  it('lets a non-admin change only their e-mail, with their current password, which must be verified again', async () => {
    // The row requires newusername: the user's own name is no change of name.
    const res = await call(t, '/api/user/edit', {
      cookie: annCookie,
      body: { username: 'ann', newusername: 'ann', newemail: 'ann@new.example', password: passwordOf('ann') },
    });
    expect(res.status, show(res)).toBe(201);
    expect(res.body.user).toMatchObject({ username: 'ann', email: 'ann@new.example', emailVerified: false, role: 'user' });
  });
});

describe('personal keys of a user with role admin', () => {
  it('a write key acts as an admin; a read key as an admin that may only read', async () => {
    const cookie = await userSession(t, 'ada');
    const promote = await call(t, '/api/user/role', { key: t.key, body: { username: 'ada', name: 'admin' } });
    expect(promote.status, show(promote)).toBe(201);
    const write = await makeKey(t, { cookie }, 'ada-write', 'write');
    const read = await makeKey(t, { cookie }, 'ada-read', 'read');
    expect((await call(t, '/api/user/all', { key: read })).status).toBe(200);
    expect((await call(t, '/api/files/download', { key: read, query: { username: 'bob', file: 'b.txt' } })).status).toBe(200);
    const refused = await call(t, '/api/user/create', {
      key: read,
      body: { username: 'byread', email: 'r@example.com', password: 'By-read-pw-8812' },
    });
    expect(refused.status, show(refused)).toBe(403);
    expect(codeOf(refused)).toBe('insufficient_scope');
    const made = await call(t, '/api/user/create', {
      key: write,
      body: { username: 'bywrite', email: 'w@example.com', password: 'By-write-pw-8812' },
    });
    expect(made.status, show(made)).toBe(201);
  });
});

describe('roles', () => {
  it('a non-admin reads their own role; any other name is 404 role_not_found like a role that does not exist', async () => {
    const own = await call(t, '/api/role', { cookie: annCookie, query: { name: 'user' } });
    expect(own.status, show(own)).toBe(200);
    expect(own.body.name).toBe('user');
    const admin = await call(t, '/api/role', { cookie: annCookie, query: { name: 'admin' } });
    const ghost = await call(t, '/api/role', { cookie: annCookie, query: { name: 'ghost-role' } });
    expect(admin.status, show(admin)).toBe(404);
    expect(codeOf(admin)).toBe('role_not_found');
    expect(admin.text).toBe(ghost.text);
    expect((await call(t, '/api/role', { key: annRead, query: { name: 'admin' } })).status).toBe(404);
  });
});

describe('personal keys', () => {
  it('a non-admin sees only their own keys', async () => {
    const res = await call(t, '/api/keys', { cookie: annCookie });
    expect(res.status, show(res)).toBe(200);
    const labels = (res.body.keys as { label: string }[]).map((k) => k.label).sort();
    expect(labels).toEqual(['ann-read', 'ann-write']);
    expect(res.text).not.toContain('bob-key');
  });

  it('another user’s key label is 404 like one that does not exist, and bob’s key keeps working', async () => {
    const bob = await call(t, '/api/keys/delete', { cookie: annCookie, body: { label: 'bob-key' } });
    const ghost = await call(t, '/api/keys/delete', { cookie: annCookie, body: { label: 'ghost-key' } });
    expect(bob.status, show(bob)).toBe(404);
    expect(bob.text).toBe(ghost.text);
    expect((await call(t, '/api/auth/me', { key: bobKey })).status).toBe(200);
    const admin = await call(t, '/api/keys/delete', { cookie: annCookie, body: { label: 'admin' } });
    expect(admin.status, `the built-in admin key: ${show(admin)}`).toBeGreaterThanOrEqual(400);
    expect((await call(t, '/api/auth/me', { key: t.key })).status).toBe(200);
  });

  it('a non-admin cannot make a key with scope admin (no way up)', async () => {
    const res = await call(t, '/api/keys/create', { cookie: annCookie, body: { label: 'ann-admin', scope: 'admin' } });
    expect(res.status, show(res)).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    if (typeof res.body?.key === 'string') {
      expect((await call(t, '/api/user/all', { key: res.body.key })).status).toBe(403);
    }
  });

  it('a read key cannot make a write key', async () => {
    const res = await call(t, '/api/keys/create', { key: annRead, body: { label: 'ann-upgrade', scope: 'write' } });
    expect(res.status, show(res)).toBe(403);
    expect(codeOf(res)).toBe('insufficient_scope');
  });

  it('naming bob as the owner does not help a non-admin delete bob’s key', async () => {
    for (const body of [
      { label: 'bob-key', username: 'bob' },
      { label: 'bob-key', username: 'ann' },
    ]) {
      const res = await call(t, '/api/keys/delete', { cookie: annCookie, body });
      expect(res.status, `${JSON.stringify(body)}: ${show(res)}`).toBe(404);
    }
    expect((await call(t, '/api/keys/delete', { key: annWrite, body: { label: 'bob-key', username: 'bob' } })).status).toBe(404);
    expect((await call(t, '/api/auth/me', { key: bobKey })).status).toBe(200);
  });

  it('an admin lists everyone’s keys and may delete bob’s', async () => {
    const list = await call(t, '/api/keys', { key: t.key });
    expect(list.text).toContain('bob-key');
    expect(list.text).toContain('ann-write');
    const del = await call(t, '/api/keys/delete', { key: t.key, body: { label: 'bob-key', username: 'bob' } });
    expect(del.status, show(del)).toBe(200);
    expect((await call(t, '/api/auth/me', { key: bobKey, from: '127.0.7.9' })).status).toBe(401);
  });
});

describe('event streams', () => {
  let annStream: EventStream;
  let annKeyStream: EventStream;
  afterAll(async () => {
    await annStream?.close();
    await annKeyStream?.close();
  });

  it('carry only events naming the user (plus index.state), never bob’s', async () => {
    annStream = await openEventStream(t.url, { Cookie: `${COOKIE}=${annCookie}` });
    annKeyStream = await openEventStream(t.url, { 'API-Key': annRead });
    expect(annStream.status).toBe(200);
    expect(annKeyStream.status).toBe(200);
    // bob's and the admin's changes…
    await uploadAs(t, { cookie: bobCookie }, 'bob', 'secret-plan.txt', 'nope');
    await call(t, '/api/files/share', { cookie: bobCookie, body: { username: 'bob', file: 'secret-plan.txt' } });
    await call(t, '/api/folders/create', { cookie: bobCookie, body: { username: 'bob', folder: 'private-folder' } });
    await call(t, '/api/user/edit', { key: t.key, body: { username: 'bob', newusername: 'bob', newemail: 'bob@new.example' } });
    await call(t, '/api/role/create', { key: t.key, body: { name: 'vip', maxStorage: '10', badge: 'https://example.com/v.png' } });
    // …then ann's own, which must arrive: after it, nothing of bob's may be there.
    await uploadAs(t, { cookie: annCookie }, 'ann', 'mine.txt', 'mine');
    for (const s of [annStream, annKeyStream]) {
      await vi.waitFor(() => expect(s.messages.some((m) => m.data.file === 'mine.txt')).toBe(true), { timeout: 5000 });
      await new Promise((r) => setTimeout(r, 100));
      for (const m of s.messages) {
        expect(m.event === 'index.state' || m.data.username === 'ann', JSON.stringify(m)).toBe(true);
      }
      expect(s.text()).not.toContain('secret-plan');
      expect(s.text()).not.toContain('private-folder');
      expect(s.text()).not.toContain('"bob"');
    }
  });
});
