/**
 * Every endpoint × every kind of caller (docs/accounts.md, "Who calls" and "Audiences"): no
 * credential, a user's session naming themselves and naming another user, that user's read
 * key, a machine read key, an admin-role user's session and the admin key. The sample
 * parameters below are a Record over every endpoint id, so a new row without a case fails
 * to compile. The expectation comes from the row's audience; the refusals must be exactly
 * the documented ones (401 unauthorized, 403 admin_only / admin_key_only / insufficient_scope, 404
 * user_not_found with the body of a user that does not exist), and an admitted call must not
 * be refused by any of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_BY_ID, ENDPOINTS, refusesReadOnly, requestTarget, type Endpoint, type EndpointId } from '../../shared/endpoints.js';
import { api, signIn } from '../helpers/api.js';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const OWN = 'ana';
const OTHER = 'bob';
let n = 0;

/** Parameters for each endpoint that name `user` where the row names a user; harmless when admitted. */
const SAMPLES: Record<EndpointId, (user: string) => Record<string, string>> = {
  'user.get': (user) => ({ username: user }),
  'user.all': () => ({}),
  'user.create': () => ({ username: `made${++n}`, email: 'm@example.com', password: 'password123' }),
  'user.delete': () => ({ username: 'nobody' }),
  'user.edit': (user) => ({ username: user, newusername: user, newemail: `${user}@example.com` }),
  'user.verify': (user) => ({ username: user }),
  'user.role': () => ({ username: 'nobody', name: 'user' }),
  'folders.list': (user) => ({ username: user }),
  'folders.files': (user) => ({ username: user, folder: 'missing' }),
  'folders.create': (user) => ({ username: user, folder: `d${++n}` }),
  'folders.delete': (user) => ({ username: user, folder: 'missing' }),
  'folders.files.rename': (user) => ({ username: user, folder: 'missing', file: 'a.txt', newname: 'b.txt' }),
  'folders.files.delete': (user) => ({ username: user, folder: 'missing', file: 'a.txt' }),
  'role.get': () => ({ name: 'user' }),
  'role.all': () => ({}),
  'role.create': () => ({ name: `r${++n}`, maxStorage: '5', badge: 'https://example.com/b.png' }),
  'role.delete': () => ({ name: 'missing' }),
  'role.edit': () => ({ name: 'missing', newname: 'other', maxStorage: '5', badge: 'https://example.com/b.png' }),
  'files.list': (user) => ({ username: user }),
  'files.search': (user) => ({ username: user, q: 'a' }),
  'files.delete': (user) => ({ username: user, file: 'missing.txt' }),
  'files.rename': (user) => ({ username: user, file: 'missing.txt', newname: 'b.txt' }),
  'files.share': (user) => ({ username: user, file: 'missing.txt' }),
  'files.noshare': (user) => ({ username: user, file: 'missing.txt' }),
  'shares.edit': (user) => ({ username: user, file: 'missing.txt' }),
  'shares.list': (user) => ({ username: user }),
  'files.versions': (user) => ({ username: user, file: 'missing.txt' }),
  'files.versions.restore': (user) => ({ username: user, file: 'missing.txt', id: 'f'.repeat(32) }),
  'files.versions.download': (user) => ({ username: user, file: 'missing.txt', id: 'f'.repeat(32) }),
  'folders.share': (user) => ({ username: user, folder: 'missing' }),
  'folders.noshare': (user) => ({ username: user, folder: 'missing' }),
  'files.upload': (user) => ({ username: user, file: `up${++n}.txt` }),
  'files.download': (user) => ({ username: user, file: 'missing.txt' }),
  'files.move': (user) => ({ username: user, file: 'missing.txt', to: 'missing' }),
  'files.copy': (user) => ({ username: user, file: 'missing.txt', to: 'missing' }),
  'files.thumbnail': (user) => ({ username: user, file: 'missing.png' }),
  'folders.rename': (user) => ({ username: user, folder: 'missing', newname: `d${++n}` }),
  'folders.move': (user) => ({ username: user, folder: 'missing', to: '' }),
  'folders.copy': (user) => ({ username: user, folder: 'missing', to: '' }),
  'folders.download': (user) => ({ username: user, folder: 'missing' }),
  'usage.get': (user) => ({ username: user }),
  'trash.list': (user) => ({ username: user }),
  'trash.restore': (user) => ({ username: user, id: '0'.repeat(32) }),
  'trash.delete': (user) => ({ username: user, id: '0'.repeat(32) }),
  'trash.empty': (user) => ({ username: user }),
  'dash.get': () => ({}),
  'dash.rescan': () => ({}),
  events: () => ({}),
  'keys.list': () => ({}),
  'keys.create': () => ({ label: `k${++n}`, scope: 'read' }),
  'keys.delete': () => ({ label: 'ghost' }),
  'keys.rotate': () => ({}),
  'auth.login': () => ({ username: 'nobody-here', password: 'wrong password' }),
  'auth.logout': () => ({}),
  'auth.me': () => ({}),
  'auth.password': () => ({ password: 'not the password', newpassword: 'whatever phrase' }),
  'auth.reset': () => ({ username: 'nobody-here' }),
  'auth.reset.confirm': () => ({ token: 'A'.repeat(43), newpassword: 'whatever phrase' }),
  'auth.register': () => ({ username: `reg${++n}`, email: 'r@example.com', password: 'my own phrase' }),
  'auth.options': () => ({}),
  'auth.sessions': () => ({}),
  'auth.sessions.delete': () => ({ id: 'f'.repeat(32) }),
  openapi: () => ({}),
  'health.get': () => ({}),
  'share.download': () => ({ token: 'A'.repeat(22) }),
  'share.unlock': () => ({ token: 'A'.repeat(22), password: 'not it' }),
  'share.upload': () => ({ token: 'A'.repeat(22), file: 'x.txt' }),
  'role.badge.upload': () => ({}),
  'role.badge.get': () => ({ file: `${'0'.repeat(32)}.png` }),
  verify: () => ({ token: 'A'.repeat(24) }),
};

type Outcome = 'admitted' | 'unauthorized' | 'admin_only' | 'admin_key_only' | 'insufficient_scope' | 'user_not_found';

interface CallerKind {
  name: string;
  /** The user the sample parameters name. */
  target: string;
  /** Headers of one request (a fresh session per request: auth.logout ends one). */
  headers(): Promise<{ key: string | null; headers: Record<string, string> }>;
  expect(e: Endpoint): Outcome;
}

let t: TestDaemon;
let userReadKey = '';
let machineReadKey = '';
const REFUSALS = ['unauthorized', 'admin_only', 'admin_key_only', 'insufficient_scope', 'cross_site_request'];

const KINDS: CallerKind[] = [
  {
    name: 'no credential',
    target: OWN,
    headers: async () => ({ key: null, headers: {} }),
    expect: (e) => (e.audience === 'public' ? 'admitted' : 'unauthorized'),
  },
  {
    name: 'a user’s session, naming themselves',
    target: OWN,
    headers: async () => ({ key: null, headers: (await signIn(t, OWN)).headers }),
    expect: (e) => (e.audience === 'admin' ? 'admin_only' : e.audience === 'adminKey' ? 'admin_key_only' : 'admitted'),
  },
  {
    name: 'a user’s session, naming another user',
    target: OTHER,
    headers: async () => ({ key: null, headers: (await signIn(t, OWN)).headers }),
    expect: (e) =>
      e.audience === 'admin'
        ? 'admin_only'
        : e.audience === 'adminKey'
          ? 'admin_key_only'
          : e.audience === 'self'
            ? 'user_not_found'
            : 'admitted',
  },
  {
    name: 'a user’s read key',
    target: OWN,
    headers: async () => ({ key: userReadKey, headers: {} }),
    expect: (e) =>
      e.audience === 'admin'
        ? 'admin_only'
        : e.audience === 'adminKey'
          ? 'admin_key_only'
          : refusesReadOnly(e)
            ? 'insufficient_scope'
            : 'admitted',
  },
  {
    name: 'a machine read key',
    target: OTHER,
    headers: async () => ({ key: machineReadKey, headers: {} }),
    expect: (e) => (e.audience === 'adminKey' ? 'admin_key_only' : refusesReadOnly(e) ? 'insufficient_scope' : 'admitted'),
  },
  {
    name: 'an admin-role user’s session, naming another user',
    target: OTHER,
    headers: async () => ({ key: null, headers: (await signIn(t, 'boss')).headers }),
    expect: (e) => (e.audience === 'adminKey' ? 'admin_key_only' : 'admitted'),
  },
  {
    name: 'the admin key',
    target: OTHER,
    headers: async () => ({ key: t.key, headers: {} }),
    expect: () => 'admitted',
  },
];

/** One call of `id` as `kind`; an event stream is read up to its headers and closed. */
async function call(kind: CallerKind, e: Endpoint): Promise<{ status: number; body: { code?: string; error?: string } | null }> {
  const { key, headers } = await kind.headers();
  const params = SAMPLES[e.id](kind.target);
  const all = new Headers(headers);
  if (key) all.set('API-Key', key);
  let target = requestTarget(e, params);
  let body: string | undefined;
  if (e.method === 'POST' && e.group === 'auth') {
    target = e.path;
    all.set('Content-Type', 'application/json');
    body = JSON.stringify(params);
  } else if (e.bodyIsContent) body = 'content';
  const abort = new AbortController();
  const res = await fetch(`${t.url}${target}`, { method: e.method, headers: all, body, signal: abort.signal });
  if (e.raw === 'events' && res.ok) {
    abort.abort();
    return { status: res.status, body: null };
  }
  const text = await res.text();
  let parsed = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a page or bytes
  }
  return { status: res.status, body: parsed };
}

beforeAll(async () => {
  t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } });
  for (const name of [OWN, OTHER, 'boss']) await createUser(t, name);
  await api(t, 'user.role', { username: 'boss', name: 'admin' });
  const { headers } = await signIn(t, OWN);
  userReadKey = (await api(t, 'keys.create', { label: 'reader', scope: 'read' }, { key: null, headers })).body.key;
  machineReadKey = (await api(t, 'keys.create', { label: 'dash', scope: 'read' })).body.key;
});
afterAll(async () => {
  await t?.close();
});

describe.each(KINDS.map((k) => [k.name, k] as const))('%s', (_name, kind) => {
  it.each(ENDPOINTS.map((e) => [e.method, e.path, e.id] as const))('%s %s', async (_method, _path, id) => {
    const e = ENDPOINT_BY_ID[id] as Endpoint;
    const expected = kind.expect(e);
    const { status, body } = await call(kind, e);
    const what = `${kind.name}: ${id} → ${status} ${JSON.stringify(body)}`;
    switch (expected) {
      case 'unauthorized':
        expect(status, what).toBe(401);
        expect(body?.code, what).toBe('unauthorized');
        break;
      case 'admin_only':
      case 'admin_key_only':
      case 'insufficient_scope':
        expect(status, what).toBe(403);
        expect(body?.code, what).toBe(expected);
        break;
      case 'user_not_found':
        // Exactly what a user that does not exist answers.
        expect({ status, body }, what).toEqual({ status: 404, body: { error: 'User not found', code: 'user_not_found' } });
        break;
      case 'admitted':
        expect(REFUSALS, what).not.toContain(body?.code);
        if (kind.target === OWN) expect(body?.code, what).not.toBe('user_not_found');
        break;
    }
  });
});
