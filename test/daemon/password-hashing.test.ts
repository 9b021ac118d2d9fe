/**
 * Issue 28, item 7 (docs/accounts.md, "Passwords"): new passwords are stored as argon2id, and a
 * hash in the old scrypt format still signs in (the API, WebDAV's Basic, a share link's
 * password page) and is replaced by an argon2id one at that sign-in. Black-box over a real
 * port; the store is read as the daemon wrote it (db.json, or PostgreSQL's rows in the cluster
 * project), and the old hashes are written into it while the daemon is stopped, made by the
 * old code path (`legacyScryptHash`).
 */
import { hash as argon2Hash } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyScryptHash } from '../../daemon/keys/password-hash.js';
import { login, makeUser, passwordOf, show } from '../helpers/accounts.js';
import { api } from '../helpers/api.js';
import { editDb, readDb, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { dav } from '../helpers/dav.js';

const ARGON2ID = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;
const SCRYPT = /^scrypt\$16384\$8\$1\$/;
const LINK_PASSWORD = 'open sesame';
const BROWSER = 'text/html,application/xhtml+xml,*/*;q=0.8';

interface StoredUser {
  username: string;
  passwordHash: string;
}

let t: TestDaemon;
let linkPath: string;
/** Users whose stored hash is set to an old scrypt one before the daemon starts again. */
const LEGACY = ['olga', 'oscar', 'otto', 'owen', 'opal', 'orla'];
/** A user whose stored hash is argon2id with less memory than today's (as a future change of parameters would leave it). */
const WEAK = 'oona';

const storedUser = async (username: string): Promise<StoredUser> =>
  ((await readDb(t)).users as StoredUser[]).find((u) => u.username === username)!;
const storedLinkHash = async (token: string): Promise<string> =>
  ((await readDb(t)).shares as { token: string; passwordHash: string }[]).find((s) => s.token === token)!.passwordHash;

beforeAll(async () => {
  t = await startTestDaemon();
  for (const name of [...LEGACY, WEAK]) await makeUser(t, name);
  await upload(t, 'olga', 'a.txt', 'shared bytes');
  const shared = await api(t, 'files.share', { username: 'olga', file: 'a.txt', password: LINK_PASSWORD });
  expect(shared.status, shared.text).toBe(201);
  linkPath = new URL(shared.body.file.shareUrl!).pathname;
  // As a store written before issue 28 holds them: the same passwords, hashed with scrypt.
  const old = new Map<string, string>();
  for (const name of LEGACY) old.set(name, await legacyScryptHash(passwordOf(name)));
  old.set(WEAK, await argon2Hash(passwordOf(WEAK), { algorithm: 2, memoryCost: 4096, timeCost: 3, parallelism: 1 }));
  const oldLink = await legacyScryptHash(LINK_PASSWORD);
  await t.stop();
  await editDb(t, (db) => {
    for (const user of db.users as StoredUser[]) if (old.has(user.username)) user.passwordHash = old.get(user.username)!;
    for (const share of db.shares as { passwordHash?: string }[]) if (share.passwordHash) share.passwordHash = oldLink;
  });
  await t.restart();
  // Long enough for the cluster project's first daemon, which waits for PostgreSQL and Swift to start.
}, 180_000);
afterAll(() => t.close());

describe('password hashes', () => {
  it('stores a new user’s password as argon2id at OWASP’s parameters, and it signs in', async () => {
    await makeUser(t, 'nina');
    expect((await storedUser('nina')).passwordHash).toMatch(ARGON2ID);
    const { res } = await login(t, 'nina', passwordOf('nina'), { from: '127.0.4.1' });
    expect(res.status, show(res)).toBe(200);
  });

  it('signs in a user whose stored hash is scrypt, and replaces it with argon2id from the same password', async () => {
    const before = await storedUser('olga');
    expect(before.passwordHash).toMatch(SCRYPT);
    const first = await login(t, 'olga', passwordOf('olga'), { from: '127.0.4.2' });
    expect(first.res.status, show(first.res)).toBe(200);
    const after = await storedUser('olga');
    expect(after.passwordHash).toMatch(ARGON2ID);
    // Nothing else of the record changed.
    expect({ ...after, passwordHash: null }).toEqual({ ...before, passwordHash: null });
    const again = await login(t, 'olga', passwordOf('olga'), { from: '127.0.4.2' });
    expect(again.res.status, show(again.res)).toBe(200);
    expect((await storedUser('olga')).passwordHash).toBe(after.passwordHash);
    const wrong = await login(t, 'olga', 'not-her-password-1', { from: '127.0.4.2' });
    expect(wrong.res.status, show(wrong.res)).toBe(401);
  });

  it('refuses a wrong password against an old hash, counts it in the throttle, and keeps the hash', async () => {
    const from = '127.0.4.3';
    for (let i = 0; i < 5; i++) {
      const { res } = await login(t, 'oscar', `wrong-password-${i}`, { from });
      expect(res.status, show(res)).toBe(401);
      expect(res.body.code).toBe('invalid_credentials');
    }
    // Five failures for the name: the right password waits too.
    const blocked = await login(t, 'oscar', passwordOf('oscar'), { from: '127.0.4.4' });
    expect(blocked.res.status, show(blocked.res)).toBe(429);
    expect(Number(blocked.res.headers['retry-after'])).toBeGreaterThan(0);
    expect((await storedUser('oscar')).passwordHash).toMatch(SCRYPT);
  });

  it('takes the password of a user with an old hash over WebDAV’s Basic, and replaces the hash', async () => {
    const auth: [string, string] = ['otto', passwordOf('otto')];
    const res = await dav(t, 'PROPFIND', '/dav/otto/', { auth, headers: { Depth: '0' }, from: '127.0.4.5' });
    expect(res.status, show(res)).toBe(207);
    expect((await storedUser('otto')).passwordHash).toMatch(ARGON2ID);
    const put = await dav(t, 'PUT', '/dav/otto/b.txt', { auth, body: 'written', from: '127.0.4.5' });
    expect(put.status, show(put)).toBe(201);
    const wrong = await dav(t, 'PROPFIND', '/dav/otto/', {
      auth: ['otto', 'wrong-password-1'],
      headers: { Depth: '0' },
      from: '127.0.4.5',
    });
    expect(wrong.status, show(wrong)).toBe(401);
    // And the API's sign-in takes the same password against the new hash.
    const { res: signedIn } = await login(t, 'otto', passwordOf('otto'), { from: '127.0.4.5' });
    expect(signedIn.status, show(signedIn)).toBe(200);
  });

  it('refuses a wrong WebDAV password against an old hash and keeps the hash', async () => {
    const res = await dav(t, 'PROPFIND', '/dav/owen/', { auth: ['owen', 'wrong-password-1'], headers: { Depth: '0' }, from: '127.0.4.6' });
    expect(res.status, show(res)).toBe(401);
    expect((await storedUser('owen')).passwordHash).toMatch(SCRYPT);
  });

  it('opens a share link whose password hash is scrypt, and replaces it with argon2id', async () => {
    const token = linkPath.slice('/s/'.length);
    expect(await storedLinkHash(token)).toMatch(SCRYPT);
    const unlock = (password: string) =>
      t.raw('POST', linkPath, {
        key: null,
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: BROWSER },
        body: new URLSearchParams({ password }).toString(),
      });
    expect((await unlock('not it')).status).toBe(401);
    expect(await storedLinkHash(token)).toMatch(SCRYPT);
    const res = await unlock(LINK_PASSWORD);
    expect(res.status, res.text).toBe(303);
    expect(await storedLinkHash(token)).toMatch(ARGON2ID);
    // The cookie this answer gave is made from the new hash: it opens the link.
    const cookie = /^(nimbus_share=[^;]+)/.exec(res.headers.get('Set-Cookie') ?? '')![1];
    const opened = await t.raw('GET', linkPath, { key: null, headers: { Cookie: cookie } });
    expect(opened.status, opened.text).toBe(200);
    expect(opened.text).toBe('shared bytes');
    expect((await unlock(LINK_PASSWORD)).status).toBe(303);
  });

  it('replaces an argon2id hash made with weaker parameters than today’s', async () => {
    expect((await storedUser(WEAK)).passwordHash).toMatch(/^\$argon2id\$v=19\$m=4096,t=3,p=1\$/);
    const { res } = await login(t, WEAK, passwordOf(WEAK), { from: '127.0.4.7' });
    expect(res.status, show(res)).toBe(200);
    expect((await storedUser(WEAK)).passwordHash).toMatch(ARGON2ID);
  });

  it('signs in every one of several sign-ins at once with an old hash, and stores one argon2id hash', async () => {
    // Each finds the scrypt hash, one replaces it first: the others see it changed and check again.
    const logins = await Promise.all([1, 2, 3, 4].map((i) => login(t, 'opal', passwordOf('opal'), { from: `127.0.5.${i}` })));
    for (const { res } of logins) expect(res.status, show(res)).toBe(200);
    const stored = (await storedUser('opal')).passwordHash;
    expect(stored).toMatch(ARGON2ID);
    const auth: [string, string] = ['orla', passwordOf('orla')];
    const mounts = await Promise.all(
      [1, 2, 3, 4].map((i) => dav(t, 'PROPFIND', '/dav/orla/', { auth, headers: { Depth: '0' }, from: `127.0.6.${i}` })),
    );
    for (const res of mounts) expect(res.status, show(res)).toBe(207);
    expect((await storedUser('orla')).passwordHash).toMatch(ARGON2ID);
    const again = await login(t, 'opal', passwordOf('opal'), { from: '127.0.5.9' });
    expect(again.res.status, show(again.res)).toBe(200);
    expect((await storedUser('opal')).passwordHash).toBe(stored);
  });
});
