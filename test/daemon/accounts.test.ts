/**
 * What a signed-in user may do with their own things (docs/accounts.md): personal keys,
 * their own role, their own e-mail (verified again), an event stream of their own, and
 * NIMBUS_REQUIRE_VERIFIED.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, apiLoose, signIn, type SignedIn } from '../helpers/api.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';
import { readOutbox, verifyLink } from '../helpers/mail.js';
import { expectErrorBody } from '../helpers/records.js';

const WAIT = { timeout: 10_000, interval: 25 };
let t: TestDaemon;
let n = 0;

async function user(): Promise<SignedIn> {
  const username = `a${++n}`;
  await createUser(t, username);
  return signIn(t, username);
}

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(async () => {
  await t?.close();
});

describe('personal keys', () => {
  it('are made by a signed-in user, act as that user and show who owns them', async () => {
    const ana = await user();
    const bob = await user();
    await upload(t, ana.username, 'a.txt', 'ana’s');
    const made = await api(t, 'keys.create', { label: 'laptop', scope: 'write' }, { key: null, headers: ana.headers });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ label: 'laptop', scope: 'write', builtIn: false, username: ana.username });
    const key = made.body.key;
    expect((await api(t, 'auth.me', {}, { key })).body).toMatchObject({ user: { username: ana.username }, admin: false });
    expect((await api(t, 'files.list', { username: ana.username }, { key })).body.files.map((f) => f.name)).toEqual(['a.txt']);
    expectErrorBody(await api(t, 'files.list', { username: bob.username }, { key }), 404, 'user_not_found');
    expect((await api(t, 'folders.create', { username: ana.username, folder: 'docs' }, { key })).status).toBe(201);
    expectErrorBody(await api(t, 'user.all', {}, { key }), 403, 'admin_only');
  });

  it('of scope read may only read', async () => {
    const ana = await user();
    const key = (await api(t, 'keys.create', { label: 'ro', scope: 'read' }, { key: null, headers: ana.headers })).body.key;
    expect((await api(t, 'files.list', { username: ana.username }, { key })).status).toBe(200);
    expectErrorBody(await api(t, 'folders.create', { username: ana.username, folder: 'x' }, { key }), 403, 'insufficient_scope');
  });

  it('take the scopes of their kind: a user’s write or read, an admin key’s admin or read', async () => {
    const ana = await user();
    expectErrorBody(
      await api(t, 'keys.create', { label: 'root', scope: 'admin' }, { key: null, headers: ana.headers }),
      400,
      'invalid_parameter',
    );
    expectErrorBody(await api(t, 'keys.create', { label: `w${++n}`, scope: 'write' }), 400, 'invalid_parameter');
  });

  it('are listed and deleted by their owner only; labels are per owner', async () => {
    const ana = await user();
    const bob = await user();
    await api(t, 'keys.create', { label: 'laptop', scope: 'write' }, { key: null, headers: ana.headers });
    expect((await api(t, 'keys.create', { label: 'laptop', scope: 'read' }, { key: null, headers: bob.headers })).status).toBe(201);
    expectErrorBody(
      await api(t, 'keys.create', { label: 'laptop', scope: 'read' }, { key: null, headers: ana.headers }),
      409,
      'key_exists',
    );
    const listed = (await api(t, 'keys.list', {}, { key: null, headers: ana.headers })).body.keys;
    expect(listed).toEqual([expect.objectContaining({ label: 'laptop', username: ana.username })]);
    expectErrorBody(
      await api(t, 'keys.delete', { label: 'laptop', username: bob.username }, { key: null, headers: ana.headers }),
      404,
      'key_not_found',
    );
    expectErrorBody(await api(t, 'keys.delete', { label: 'admin' }, { key: null, headers: ana.headers }), 404, 'key_not_found');
    expect((await api(t, 'keys.delete', { label: 'laptop' }, { key: null, headers: ana.headers })).status).toBe(200);
    expect((await api(t, 'keys.list', {}, { key: null, headers: bob.headers })).body.keys).toHaveLength(1);
  });

  it('are all listed to an admin, who deletes a user’s key by naming the user', async () => {
    const ana = await user();
    const key = (await api(t, 'keys.create', { label: 'tablet', scope: 'write' }, { key: null, headers: ana.headers })).body.key;
    const all = (await api(t, 'keys.list')).body.keys;
    expect(all[0]).toMatchObject({ label: 'admin', builtIn: true, username: null });
    expect(all).toContainEqual(expect.objectContaining({ label: 'tablet', username: ana.username }));
    expectErrorBody(await api(t, 'keys.delete', { label: 'tablet' }), 404, 'key_not_found');
    expect((await api(t, 'keys.delete', { label: 'tablet', username: ana.username })).status).toBe(200);
    expectErrorBody(await api(t, 'auth.me', {}, { key }), 401, 'unauthorized');
  });

  it('of an admin-role user act as an admin', async () => {
    const boss = await user();
    await api(t, 'user.role', { username: boss.username, name: 'admin' });
    const key = (await api(t, 'keys.create', { label: 'ops', scope: 'write' }, { key: null, headers: boss.headers })).body.key;
    expect((await api(t, 'user.all', {}, { key })).status).toBe(200);
    // Demoted: the key loses it at once.
    await api(t, 'user.role', { username: boss.username, name: 'user' });
    expectErrorBody(await api(t, 'user.all', {}, { key }), 403, 'admin_only');
  });
});

describe('a user’s own record and role', () => {
  it('reads their own role only; another role is as one that does not exist', async () => {
    const ana = await user();
    await api(t, 'role.create', { name: 'gold', maxStorage: 5, badge: 'https://example.com/g.png' });
    expect((await api(t, 'role.get', { name: 'user' }, { key: null, headers: ana.headers })).status).toBe(200);
    const other = await api(t, 'role.get', { name: 'gold' }, { key: null, headers: ana.headers });
    expectErrorBody(other, 404, 'role_not_found');
    expect(other.body).toEqual((await api(t, 'role.get', { name: 'nosuchrole' }, { key: null, headers: ana.headers })).body);
  });

  it('changes their own e-mail, with their current password, which must then be verified again (a mail is sent)', async () => {
    const ana = await user();
    const res = await api(
      t,
      'user.edit',
      { username: ana.username, newusername: ana.username, newemail: 'fresh@example.com', password: 'password123' },
      { key: null, headers: ana.headers },
    );
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email: 'fresh@example.com', emailVerified: false });
    const mail = (await readOutbox(t.dataDir)).find((m) => m.includes('To: fresh@example.com'));
    expect(verifyLink(mail ?? '')).not.toBeNull();
  });

  it('may not rename themselves or set a password through user.edit', async () => {
    const ana = await user();
    const rename = await api(
      t,
      'user.edit',
      { username: ana.username, newusername: `${ana.username}x`, newemail: 'a@example.com' },
      { key: null, headers: ana.headers },
    );
    expectErrorBody(rename, 403, 'admin_only');
    const password = await api(
      t,
      'user.edit',
      { username: ana.username, newusername: ana.username, newemail: 'a@example.com', newpassword: 'sneaky-pass-1' },
      { key: null, headers: ana.headers },
    );
    expectErrorBody(password, 403, 'admin_only');
    expect((await api(t, 'user.get', { username: ana.username })).body.username).toBe(ana.username);
  });

  it('may not change their role, or anyone else’s record', async () => {
    const ana = await user();
    const bob = await user();
    expectErrorBody(
      await api(t, 'user.role', { username: ana.username, name: 'admin' }, { key: null, headers: ana.headers }),
      403,
      'admin_only',
    );
    const other = await api(
      t,
      'user.edit',
      { username: bob.username, newusername: bob.username, newemail: 'x@example.com' },
      { key: null, headers: ana.headers },
    );
    expectErrorBody(other, 404, 'user_not_found');
    expect((await api(t, 'user.get', { username: bob.username })).body.email).toBe(`${bob.username}@example.com`);
  });

  it('cannot reach another user’s file by any of the file routes', async () => {
    const ana = await user();
    const bob = await user();
    await upload(t, bob.username, 'secret.txt', 'bob’s');
    for (const res of [
      await api(t, 'files.download', { username: bob.username, file: 'secret.txt' }, { key: null, headers: ana.headers }),
      await api(t, 'files.share', { username: bob.username, file: 'secret.txt' }, { key: null, headers: ana.headers }),
      await api(t, 'files.delete', { username: bob.username, file: 'secret.txt' }, { key: null, headers: ana.headers }),
      await apiLoose(
        t,
        'files.download',
        { username: bob.username.toUpperCase(), file: 'secret.txt' },
        { key: null, headers: ana.headers },
      ),
    ])
      expectErrorBody(res, 404, 'user_not_found');
    expect((await api(t, 'files.list', { username: bob.username })).body.files).toHaveLength(1);
  });
});

describe('a user’s event stream', () => {
  it('carries only the events naming them, and the index’s state', async () => {
    const ana = await user();
    const bob = await user();
    const stream = await openEventStream(t.url, { Cookie: ana.cookie });
    try {
      await vi.waitFor(() => expect(stream.text()).toContain(': connected'), WAIT);
      await upload(t, bob.username, 'b.txt', 'x');
      await api(t, 'role.create', { name: `quiet${++n}`, maxStorage: 5, badge: 'https://example.com/q.png' });
      await upload(t, ana.username, 'a.txt', 'x');
      await vi.waitFor(() => expect(stream.messages.some((m) => m.data.file === 'a.txt')).toBe(true), WAIT);
      expect(stream.messages.every((m) => m.data.username === ana.username || m.event === 'index.state')).toBe(true);
    } finally {
      await stream.close();
    }
  });
});

describe('NIMBUS_REQUIRE_VERIFIED=1', () => {
  let strict: TestDaemon;
  beforeAll(async () => {
    strict = await startTestDaemon({ env: { NIMBUS_REQUIRE_VERIFIED: '1' } });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('keeps an unverified user from uploading and sharing until they verify, not from reading', async () => {
    await createUser(strict, 'ana');
    await upload(strict, 'ana', 'by-admin.txt', 'x'); // an admin may
    const { headers } = await signIn(strict, 'ana');
    const up = await api(strict, 'files.upload', { username: 'ana', file: 'mine.txt' }, { key: null, headers, body: 'x' });
    expectErrorBody(up, 403, 'email_not_verified');
    expectErrorBody(
      await api(strict, 'files.share', { username: 'ana', file: 'by-admin.txt' }, { key: null, headers }),
      403,
      'email_not_verified',
    );
    expect((await api(strict, 'files.list', { username: 'ana' }, { key: null, headers })).body.files).toHaveLength(1);
    expect((await api(strict, 'user.verify', { username: 'ana' }, { key: null, headers })).status).toBe(200);
    const link = verifyLink((await readOutbox(strict.dataDir)).at(-1)!)!;
    expect((await strict.raw('GET', `${link.pathname}${link.search}`, { key: null })).status).toBe(200);
    expect((await api(strict, 'files.upload', { username: 'ana', file: 'mine.txt' }, { key: null, headers, body: 'x' })).status).toBe(201);
    expect((await api(strict, 'files.share', { username: 'ana', file: 'mine.txt' }, { key: null, headers })).status).toBe(201);
  });
});
