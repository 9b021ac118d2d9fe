/**
 * Every endpoint × every kind of caller (docs/accounts.md, "Who calls" and "Audiences"): the
 * status each caller gets is derived from the row's `audience` (and whether it changes
 * anything), not written out per cell, so a row whose audience changes is checked against
 * the rule at once. `CASES` is a Record over every endpoint id: a row added to
 * shared/endpoints.ts without a case here fails the typecheck.
 *
 * A case makes a call that succeeds for a caller the row admits (fresh files, roles, keys and
 * users where the call uses them up), naming the caller's own user, or for "session on
 * another user" another user's existing things, so a 404 there is the audience's and not a
 * missing file's.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, ENDPOINT_BY_ID, type Endpoint, type EndpointId, type EndpointOf } from '../../shared/endpoints.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';
import { readOutbox, verifyLink } from '../helpers/mail.js';
import {
  call,
  codeOf,
  COOKIE,
  makeKey,
  makeUser,
  passwordOf,
  setRole,
  signIn,
  uploadAs,
  type Cred,
  type Resp,
} from '../helpers/accounts.js';

const KINDS = [
  'anonymous',
  'adminKey',
  'machineReadKey',
  'userSelf',
  'userOnOther',
  'personalWriteKey',
  'personalReadKey',
  'adminSession',
] as const;
type Kind = (typeof KINDS)[number];

/** Plain users: uma (the caller's user), oli (the other user); ada has role admin. */
const SELF = 'uma';
const OTHER = 'oli';
const ADMIN_USER = 'ada';

interface Caller {
  kind: Kind;
  cred: Cred;
  /** The user the call names on a `self` row: the caller's own, or another's for userOnOther, or a plain user for admins. */
  target: string;
}

let t: TestDaemon;
const creds = {} as Record<Kind, Cred>;
let n = 0;
const unique = (prefix: string) => `${prefix}${++n}`;

beforeAll(async () => {
  t = await startTestDaemon({ env: { NIMBUS_KEYCHAIN: 'off' } });
  await makeUser(t, SELF);
  await makeUser(t, OTHER);
  await makeUser(t, ADMIN_USER);
  await setRole(t, ADMIN_USER, 'admin');
  const umaSession = await signIn(t, SELF, passwordOf(SELF));
  creds.anonymous = {};
  creds.adminKey = { key: t.key };
  creds.machineReadKey = { key: await makeKey(t, { key: t.key }, 'machine-read', 'read') };
  creds.userSelf = { cookie: umaSession };
  creds.userOnOther = { cookie: umaSession };
  creds.personalWriteKey = { key: await makeKey(t, { cookie: umaSession }, 'uma-write', 'write') };
  creds.personalReadKey = { key: await makeKey(t, { cookie: umaSession }, 'uma-read', 'read') };
  creds.adminSession = { cookie: await signIn(t, ADMIN_USER, passwordOf(ADMIN_USER)) };
});
afterAll(() => t.close());

const admin = () => ({ key: t.key });
const targetOf = (kind: Kind) => (kind === 'userOnOther' ? OTHER : SELF);

/** A file of `username` made with the admin key (in `folder` if given). */
async function file(username: string, folder?: string): Promise<string> {
  const name = unique('f') + '.txt';
  if (folder) await call(t, '/api/folders/create', { ...admin(), body: { username, folder } });
  const res = await uploadAs(t, admin(), username, name, 'content', folder ? { folder } : {});
  if (res.status !== 201) throw new Error(`file: ${res.status} ${res.text}`);
  return name;
}
/** A PNG of `username` made with the admin key (files.thumbnail needs a picture). */
async function image(username: string): Promise<string> {
  const name = unique('i') + '.png';
  const bytes = await sharp({ create: { width: 80, height: 80, channels: 3, background: '#888' } })
    .png()
    .toBuffer();
  const res = await call(t, '/api/files/upload', { ...admin(), method: 'POST', query: { username, file: name }, body: bytes });
  if (res.status !== 201) throw new Error(`image: ${res.status} ${res.text}`);
  return name;
}
async function folder(username: string): Promise<string> {
  const name = unique('d');
  const res = await call(t, '/api/folders/create', { ...admin(), body: { username, folder: name } });
  if (res.status !== 201) throw new Error(`folder: ${res.status} ${res.text}`);
  return name;
}
/** A file of `username` deleted to their trash with the admin key: the trash item's id. */
async function trashed(username: string): Promise<string> {
  const res = await call(t, '/api/files/delete', { ...admin(), body: { username, file: await file(username) } });
  const id = (res.body as { trashId?: string } | null)?.trashId;
  if (res.status !== 200 || !id) throw new Error(`trashed: ${res.status} ${res.text}`);
  return id;
}
async function role(): Promise<string> {
  const name = unique('role');
  await call(t, '/api/role/create', { ...admin(), body: { name, maxStorage: '10', badge: 'https://example.com/b.png' } });
  return name;
}

/**
 * A caller of the same kind on a user of its own, for calls that end sessions or change the
 * password (which would end the matrix's shared sessions): a new user, signed in, and for
 * key kinds their key. Other kinds get their shared credential.
 */
async function fresh(kind: Kind): Promise<{ cred: Cred; username: string | null; password: string }> {
  const session = kind === 'userSelf' || kind === 'userOnOther' || kind === 'adminSession';
  const personal = kind === 'personalWriteKey' || kind === 'personalReadKey';
  if (!session && !personal) return { cred: creds[kind], username: null, password: '' };
  const username = unique('fresh');
  await makeUser(t, username);
  if (kind === 'adminSession') await setRole(t, username, 'admin');
  const cookie = await signIn(t, username, passwordOf(username));
  if (session) return { cred: { cookie }, username, password: passwordOf(username) };
  return {
    cred: { key: await makeKey(t, { cookie }, unique('k'), kind === 'personalWriteKey' ? 'write' : 'read') },
    username,
    password: passwordOf(username),
  };
}

const get = (c: Caller, path: string, query?: Record<string, string>) => call(t, path, { ...c.cred, method: 'GET', query });
const post = (c: Caller, path: string, body: Record<string, string> = {}) => call(t, path, { ...c.cred, body });

type Run = (c: Caller) => Promise<Resp>;
interface Case {
  run: Run;
  /** Statuses a caller the row admits gets instead of the row's success status (where the call cannot succeed for it). */
  admitted?: Partial<Record<Kind, number[]>>;
}

/** The smallest PNG header a badge upload accepts (its type is read from these bytes). */
const TINY_PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

const CASES: Record<EndpointId, Case> = {
  'user.get': { run: (c) => get(c, '/api/user', { username: c.target }) },
  'user.all': { run: (c) => get(c, '/api/user/all') },
  'user.create': {
    run: (c) => post(c, '/api/user/create', { username: unique('new'), email: 'n@example.com', password: 'Created-pw-4471' }),
  },
  'user.delete': {
    run: async (c) => {
      const victim = unique('victim');
      await makeUser(t, victim);
      return post(c, '/api/user/delete', { username: victim });
    },
  },
  'user.edit': {
    run: (c) => post(c, '/api/user/edit', { username: c.target, newusername: c.target, newemail: `${c.target}@example.com` }),
  },
  'user.verify': { run: (c) => post(c, '/api/user/verify', { username: c.target }) },
  'user.role': {
    run: async (c) => {
      const u = unique('r');
      await makeUser(t, u);
      return post(c, '/api/user/role', { username: u, name: 'user' });
    },
  },
  'folders.list': { run: (c) => get(c, '/api/folders', { username: c.target }) },
  'folders.files': { run: async (c) => get(c, '/api/folders/files', { username: c.target, folder: await folder(c.target) }) },
  'folders.create': { run: (c) => post(c, '/api/folders/create', { username: c.target, folder: unique('new-folder') }) },
  'folders.delete': { run: async (c) => post(c, '/api/folders/delete', { username: c.target, folder: await folder(c.target) }) },
  'folders.files.rename': {
    run: async (c) => {
      const d = unique('d');
      const f = await file(c.target, d);
      return post(c, '/api/folders/files/rename', { username: c.target, folder: d, file: f, newname: unique('renamed') });
    },
  },
  'folders.files.delete': {
    run: async (c) => {
      const d = unique('d');
      return post(c, '/api/folders/files/delete', { username: c.target, folder: d, file: await file(c.target, d) });
    },
  },
  'folders.rename': {
    run: async (c) => post(c, '/api/folders/rename', { username: c.target, folder: await folder(c.target), newname: unique('rn') }),
  },
  'folders.move': {
    run: async (c) => post(c, '/api/folders/move', { username: c.target, folder: await folder(c.target), to: await folder(c.target) }),
  },
  'folders.copy': {
    run: async (c) => post(c, '/api/folders/copy', { username: c.target, folder: await folder(c.target), to: await folder(c.target) }),
  },
  'folders.download': { run: async (c) => get(c, '/api/folders/download', { username: c.target, folder: await folder(c.target) }) },
  'role.get': { run: (c) => get(c, '/api/role', { name: c.kind === 'adminSession' ? 'admin' : 'user' }) },
  'role.all': { run: (c) => get(c, '/api/role/all') },
  'role.create': { run: (c) => post(c, '/api/role/create', { name: unique('nr'), maxStorage: '5', badge: 'https://example.com/b.png' }) },
  'role.delete': { run: async (c) => post(c, '/api/role/delete', { name: await role() }) },
  'role.edit': {
    run: async (c) =>
      post(c, '/api/role/edit', { name: await role(), newname: unique('er'), maxStorage: '7', badge: 'https://example.com/e.png' }),
  },
  'role.badge.upload': { run: (c) => call(t, '/api/role/badge', { ...c.cred, method: 'POST', body: TINY_PNG }) },
  'role.badge.get': { run: (c) => get(c, `/badges/uploaded/${'0'.repeat(32)}.png`) },
  'files.list': { run: (c) => get(c, '/api/files', { username: c.target }) },
  'files.search': { run: (c) => get(c, '/api/files/search', { username: c.target, q: 'a' }) },
  'files.delete': { run: async (c) => post(c, '/api/files/delete', { username: c.target, file: await file(c.target) }) },
  'files.rename': {
    run: async (c) => post(c, '/api/files/rename', { username: c.target, file: await file(c.target), newname: unique('nn') }),
  },
  'files.move': {
    run: async (c) => post(c, '/api/files/move', { username: c.target, file: await file(c.target), to: await folder(c.target) }),
  },
  'files.copy': {
    run: async (c) => post(c, '/api/files/copy', { username: c.target, file: await file(c.target), to: await folder(c.target) }),
  },
  'files.share': { run: async (c) => post(c, '/api/files/share', { username: c.target, file: await file(c.target) }) },
  'files.noshare': {
    run: async (c) => {
      const f = await file(c.target);
      await call(t, '/api/files/share', { ...admin(), body: { username: c.target, file: f } });
      return post(c, '/api/files/noshare', { username: c.target, file: f });
    },
  },
  'shares.list': { run: (c) => get(c, '/api/shares', { username: c.target }) },
  // A file with no version: the list is empty, and an id of none is 404 for every admitted caller.
  'files.versions': { run: async (c) => get(c, '/api/files/versions', { username: c.target, file: await file(c.target) }) },
  'files.versions.restore': {
    run: async (c) => post(c, '/api/files/versions/restore', { username: c.target, file: await file(c.target), id: 'f'.repeat(32) }),
    admitted: { adminKey: [404], userSelf: [404], personalWriteKey: [404], adminSession: [404] },
  },
  'files.versions.download': {
    run: async (c) => get(c, '/api/files/versions/download', { username: c.target, file: await file(c.target), id: 'f'.repeat(32) }),
    admitted: {
      adminKey: [404],
      userSelf: [404],
      personalWriteKey: [404],
      personalReadKey: [404],
      machineReadKey: [404],
      adminSession: [404],
    },
  },
  'folders.share': { run: async (c) => post(c, '/api/folders/share', { username: c.target, folder: await folder(c.target) }) },
  'folders.noshare': {
    run: async (c) => {
      const f = await folder(c.target);
      await call(t, '/api/folders/share', { ...admin(), body: { username: c.target, folder: f, upload: 'true' } });
      return post(c, '/api/folders/noshare', { username: c.target, folder: f, upload: 'true' });
    },
  },
  'shares.edit': {
    run: async (c) => {
      const f = await file(c.target);
      await call(t, '/api/files/share', { ...admin(), body: { username: c.target, file: f } });
      return post(c, '/api/shares/edit', { username: c.target, file: f, maxDownloads: '5' });
    },
  },
  'files.upload': {
    run: (c) =>
      call(t, '/api/files/upload', { ...c.cred, method: 'POST', query: { username: c.target, file: unique('up') }, body: 'bytes' }),
  },
  'files.download': { run: async (c) => get(c, '/api/files/download', { username: c.target, file: await file(c.target) }) },
  'files.thumbnail': { run: async (c) => get(c, '/api/files/thumbnail', { username: c.target, file: await image(c.target), size: '64' }) },
  'usage.get': { run: (c) => get(c, '/api/usage', { username: c.target }) },
  'trash.list': { run: (c) => get(c, '/api/trash', { username: c.target }) },
  'trash.restore': { run: async (c) => post(c, '/api/trash/restore', { username: c.target, id: await trashed(c.target) }) },
  'trash.delete': { run: async (c) => post(c, '/api/trash/delete', { username: c.target, id: await trashed(c.target) }) },
  'trash.empty': { run: (c) => post(c, '/api/trash/empty', { username: c.target }) },
  'dash.get': { run: (c) => get(c, '/api/dash') },
  'dash.rescan': { run: (c) => post(c, '/api/dash/rescan') },
  events: {
    run: async (c) => {
      const headers: Record<string, string> = {};
      if (c.cred.key) headers['API-Key'] = c.cred.key;
      if (c.cred.cookie) headers.Cookie = `${COOKIE}=${c.cred.cookie}`;
      const s = await openEventStream(t.url, headers);
      await s.close();
      return { status: s.status, headers: {}, text: '', body: null };
    },
  },
  'keys.list': { run: (c) => get(c, '/api/keys') },
  'keys.create': {
    // A session gives its current password (a key making a key does not).
    run: (c) =>
      post(c, '/api/keys/create', {
        label: unique('kc'),
        scope: 'read',
        ...(c.cred.cookie ? { password: passwordOf(c.kind === 'adminSession' ? ADMIN_USER : SELF) } : {}),
      }),
  },
  'keys.delete': {
    run: async (c) => {
      // A key the caller owns: a machine key for the admin key and machine keys, else one of the caller's user.
      const label = unique('kd');
      const maker =
        c.kind === 'adminSession'
          ? creds.adminSession
          : c.kind === 'adminKey' || c.kind === 'machineReadKey' || c.kind === 'anonymous'
            ? admin()
            : creds.userSelf;
      await makeKey(t, maker, label, 'read');
      return post(c, '/api/keys/delete', { label });
    },
  },
  'keys.rotate': {
    run: (c) => post(c, '/api/keys/rotate'),
    // NIMBUS_API_KEY (the test daemon's key) cannot be rotated through the API: 409 once admitted.
    admitted: { adminKey: [409] },
  },
  'auth.login': {
    run: async (c) => {
      const u = unique('lg');
      await makeUser(t, u);
      return call(t, '/api/auth/login', { ...c.cred, body: { username: u, password: passwordOf(u) } });
    },
  },
  'auth.logout': {
    run: async (c) => post({ ...c, cred: (await fresh(c.kind)).cred }, '/api/auth/logout'),
  },
  'auth.me': { run: (c) => get(c, '/api/auth/me') },
  'auth.options': { run: (c) => get(c, '/api/auth/options') },
  'auth.password': {
    run: async (c) => {
      const f = await fresh(c.kind);
      return post({ ...c, cred: f.cred }, '/api/auth/password', {
        password: f.password || 'no-user-here-1',
        newpassword: 'Changed-pw-77123',
      });
    },
    // The admin key is no user: it has no password to change (any refusal but 401 and 5xx).
    admitted: { adminKey: [400, 403, 404] },
  },
  'auth.reset': { run: (c) => post(c, '/api/auth/reset', { username: SELF }) },
  'auth.reset.confirm': {
    run: (c) => post(c, '/api/auth/reset/confirm', { token: 'A'.repeat(43), newpassword: 'Reset-pw-55120' }),
  },
  'auth.register': {
    run: (c) => post(c, '/api/auth/register', { username: unique('reg'), email: 'r@example.com', password: 'Register-pw-66' }),
  },
  'auth.sessions': { run: (c) => get(c, '/api/auth/sessions') },
  'auth.sessions.delete': {
    run: async (c) => {
      const f = await fresh(c.kind);
      if (!f.cred.cookie) return post({ ...c, cred: f.cred }, '/api/auth/sessions/delete', { id: '0'.repeat(32) });
      // A second session of the fresh user, ended from the first.
      await signIn(t, f.username!, f.password);
      const list = await get({ ...c, cred: f.cred }, '/api/auth/sessions');
      const other = (list.body.sessions as { id: string; current: boolean }[]).find((s) => !s.current)!;
      return post({ ...c, cred: f.cred }, '/api/auth/sessions/delete', { id: other.id });
    },
    // A key has no session of its own: any id is "not the caller's".
    admitted: { adminKey: [404], personalWriteKey: [404, 200] },
  },
  openapi: { run: (c) => get(c, '/api/openapi.json') },
  'health.get': { run: (c) => get(c, '/api/health') },
  'share.download': {
    run: async (c) => {
      const f = await file(OTHER);
      const shared = await call(t, '/api/files/share', { ...admin(), body: { username: OTHER, file: f } });
      return get(c, new URL(shared.body.file.shareUrl as string).pathname);
    },
  },
  'share.upload': {
    run: async (c) => {
      const shared = await call(t, '/api/folders/share', {
        ...admin(),
        body: { username: OTHER, folder: await folder(OTHER), upload: 'true' },
      });
      return call(t, `${new URL(shared.body.share.url as string).pathname}/upload`, {
        ...c.cred,
        method: 'POST',
        query: { file: 'drop.txt' },
        body: 'dropped',
      });
    },
  },
  'share.unlock': {
    run: async (c) => {
      const f = await file(OTHER);
      const shared = await call(t, '/api/files/share', { ...admin(), body: { username: OTHER, file: f, password: 'open sesame' } });
      return post(c, new URL(shared.body.file.shareUrl as string).pathname, { password: 'open sesame' });
    },
  },
  verify: {
    run: async (c) => {
      const u = unique('v');
      await makeUser(t, u);
      await call(t, '/api/user/verify', { ...admin(), body: { username: u } });
      const mail = (await readOutbox(t.dataDir)).filter((m) => m.includes(`Hello ${u},`)).pop()!;
      const link = verifyLink(mail)!;
      return get(c, link.pathname, Object.fromEntries(link.searchParams));
    },
  },
};

/** Public rows: what every caller gets, credential or not. */
/** The ids of the public rows: a public row added to the table without an entry below fails the typecheck. */
type PublicId = { [Id in EndpointId]: EndpointOf<Id> extends { audience: 'public' } ? Id : never }[EndpointId];

const PUBLIC_STATUS: Record<PublicId, { status: number; code?: string }> = {
  'auth.login': { status: 200 },
  'auth.options': { status: 200 },
  'auth.reset': { status: 200 },
  'auth.reset.confirm': { status: 400, code: 'invalid_token' },
  'auth.register': { status: 403, code: 'registration_closed' },
  'health.get': { status: 200 },
  openapi: { status: 200 },
  'share.download': { status: 200 },
  'share.unlock': { status: 303 },
  'share.upload': { status: 201 },
  'role.badge.get': { status: 404, code: 'file_not_found' },
  verify: { status: 200 },
};

const READ_ONLY: readonly Kind[] = ['machineReadKey', 'personalReadKey'];
const NON_ADMIN: readonly Kind[] = ['userSelf', 'userOnOther', 'personalWriteKey', 'personalReadKey'];
const changes = (e: Endpoint) => e.method === 'POST' || (e as { refusesReadOnly?: boolean }).refusesReadOnly === true;

interface Expected {
  statuses: number[];
  codes?: string[];
}

/** The rule of docs/accounts.md for one cell. */
function expected(e: Endpoint, c: Kind): Expected {
  const audience = (e as { audience?: string }).audience;
  if (audience === 'public') {
    const p = PUBLIC_STATUS[e.id as PublicId];
    if (READ_ONLY.includes(c) && changes(e)) {
      // "public: no credential" vs "a caller that may not change things gets 403 on every row
      // that changes something": docs/accounts.md allows both readings for a read key sent
      // to a public POST (reported; the lead decides).
      return { statuses: [p.status, 403], codes: [...(p.code ? [p.code] : []), ...(p.status < 400 ? [''] : []), 'insufficient_scope'] };
    }
    return { statuses: [p.status], codes: p.code ? [p.code] : undefined };
  }
  if (c === 'anonymous') return { statuses: [401] };
  // Only the machine's admin key itself: admins by session, machine keys and personal keys alike are refused.
  if (audience === 'adminKey' && c !== 'adminKey') return { statuses: [403], codes: ['admin_key_only'] };
  if (audience === 'admin' && NON_ADMIN.includes(c)) {
    // A read key on an admin row that changes things may be refused for either reason.
    return { statuses: [403], codes: c === 'personalReadKey' && changes(e) ? ['admin_only', 'insufficient_scope'] : ['admin_only'] };
  }
  if (READ_ONLY.includes(c) && changes(e)) return { statuses: [403], codes: ['insufficient_scope'] };
  if (audience === 'self' && c === 'userOnOther') return { statuses: [404], codes: ['user_not_found'] };
  const admitted = CASES[e.id].admitted?.[c];
  return { statuses: admitted ?? [e.success] };
}

describe('the audience of every row', () => {
  it('every row declares one of the five audiences', () => {
    for (const e of ENDPOINTS) {
      expect(['public', 'signedIn', 'self', 'admin', 'adminKey'], e.id).toContain((e as { audience?: string }).audience);
    }
  });

  it('declares the audiences docs/accounts.md lists', () => {
    const byAudience: Record<string, string[]> = {};
    for (const e of ENDPOINTS) (byAudience[(e as { audience?: string }).audience ?? '?'] ??= []).push(e.id);
    const self = [
      'user.get',
      'user.edit',
      'user.verify',
      'usage.get',
      ...ENDPOINTS.filter((e) => /^(folders|files|shares|trash)\./.test(e.id)).map((e) => e.id),
    ];
    expect(byAudience.self.sort()).toEqual(self.sort());
    expect(byAudience.admin.sort()).toEqual(
      [
        'user.all',
        'user.create',
        'user.delete',
        'user.role',
        'role.all',
        'role.create',
        'role.edit',
        'role.delete',
        'role.badge.upload',
        'dash.get',
        'dash.rescan',
      ].sort(),
    );
    expect(byAudience.adminKey).toEqual(['keys.rotate']);
    expect(byAudience.signedIn.sort()).toEqual(
      [
        'role.get',
        'keys.list',
        'keys.create',
        'keys.delete',
        'events',
        'auth.me',
        'auth.logout',
        'auth.password',
        'auth.sessions',
        'auth.sessions.delete',
      ].sort(),
    );
    expect(byAudience.public.sort()).toEqual(
      [
        'auth.login',
        'auth.options',
        'auth.register',
        'auth.reset',
        'auth.reset.confirm',
        'health.get',
        'openapi',
        'share.download',
        'share.unlock',
        'share.upload',
        'role.badge.get',
        'verify',
      ].sort(),
    );
  });
});

describe.each(ENDPOINTS.map((e) => [e.id, e] as const))('%s', (id, endpoint) => {
  it(`answers each kind of caller as its audience (${(endpoint as { audience?: string }).audience}) says`, async () => {
    const wrong: string[] = [];
    for (const kind of KINDS) {
      const caller: Caller = { kind, cred: creds[kind], target: targetOf(kind) };
      const want = expected(ENDPOINT_BY_ID[id], kind);
      const res = await CASES[id].run(caller);
      const code = codeOf(res);
      if (!want.statuses.includes(res.status) || (want.codes && !want.codes.includes(code ?? ''))) {
        wrong.push(
          `${kind}: got ${res.status}${code ? ` ${code}` : ''}, want ${want.statuses.join('|')}${want.codes ? ` ${want.codes.join('|')}` : ''}`,
        );
      }
    }
    expect(wrong, `${id}`).toEqual([]);
  });
});
