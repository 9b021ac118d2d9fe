/**
 * The auth API on a real daemon (docs/accounts.md, "The auth API", "Guessing passwords",
 * "Passwords", "Password reset", "Cross-site requests"): sign-in and its cookie, one answer for
 * an unknown user and a wrong password, passwords only in bodies, the guessing limits, password
 * change and reset, registration, and the cross-site rule.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { passwordVerificationsRun } from '../../daemon/keys/secrets.js';
import { api, apiLoose, sessionCookie, signIn } from '../helpers/api.js';
import { createUser, editDb, nodeRequest, readDbText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { decodeQuotedPrintable, readOutbox, resetLink, verifyLink } from '../helpers/mail.js';
import { expectErrorBody, expectUser } from '../helpers/records.js';

let t: TestDaemon;
let n = 0;
const unique = (prefix: string) => `${prefix}${++n}`;

async function newUser(password = 'password123', prefix = 'u'): Promise<string> {
  const username = unique(prefix);
  await createUser(t, username, `${username}@example.com`, password);
  return username;
}

/** The reset tokens mailed to `email`, oldest first, once there are `count` (mail goes out after the answer). */
async function resetTokens(d: TestDaemon, email: string, count = 1): Promise<string[]> {
  const read = async () =>
    (await readOutbox(d.dataDir))
      .filter((mail) => decodeQuotedPrintable(mail).includes(`To: ${email}`))
      .map((mail) => resetLink(mail)?.searchParams.get('token'))
      .filter((token): token is string => typeof token === 'string');
  let tokens: string[] = [];
  await vi.waitFor(
    async () => {
      tokens = await read();
      expect(tokens.length).toBeGreaterThanOrEqual(count);
    },
    { timeout: 5000, interval: 20 },
  );
  return tokens;
}

/** A sign-in from its own loopback address, so the per-address count of other tests stays out of it. */
function loginFrom(d: TestDaemon, address: string, username: string, password: string) {
  return nodeRequest(d.port, {
    method: 'POST',
    path: '/api/auth/login',
    headers: { Host: `127.0.0.1:${d.port}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
    localAddress: address,
  });
}

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(async () => {
  await t?.close();
});

describe('auth.login', () => {
  it('answers the user and sets a session cookie with the specified flags', async () => {
    const username = await newUser();
    const res = await api(t, 'auth.login', { username, password: 'password123' }, { key: null });
    expect(res.status).toBe(200);
    expectUser(res.body.user);
    expect(res.body).toMatchObject({ user: { username }, admin: false });
    const header = res.headers.get('Set-Cookie')!;
    expect(header).toMatch(/^nimbus_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=2592000$/);
    // Only the hash of the cookie is stored.
    const value = sessionCookie(res)!.split('=')[1];
    expect(await readDbText(t)).not.toContain(value);
  });

  it('says an admin-role user is an admin', async () => {
    const username = await newUser();
    await api(t, 'user.role', { username, name: 'admin' });
    const res = await api(t, 'auth.login', { username, password: 'password123' }, { key: null });
    expect(res.body.admin).toBe(true);
  });

  it('marks the cookie Secure when the public URL is https', async () => {
    const secure = await startTestDaemon({ env: { NIMBUS_PUBLIC_URL: 'https://files.example.com' } });
    try {
      await createUser(secure, 'ana');
      const res = await api(secure, 'auth.login', { username: 'ana', password: 'password123' }, { key: null });
      expect(res.headers.get('Set-Cookie')).toMatch(/; Secure$/);
      const out = await api(
        secure,
        'auth.logout',
        {},
        { key: null, headers: { Cookie: sessionCookie(res)!, Origin: 'https://files.example.com' } },
      );
      expect(out.status).toBe(200);
      expect(out.headers.get('Set-Cookie')).toBe('nimbus_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure');
    } finally {
      await secure.close();
    }
  });

  it('answers an unknown user and a wrong password with the same 401 body, after the same password work', async () => {
    const username = await newUser();
    const attempt = async (name: string) => {
      const before = passwordVerificationsRun();
      const res = await loginFrom(t, '127.0.2.1', name, 'wrong password!');
      return { res, verifications: passwordVerificationsRun() - before };
    };
    const wrong = [];
    const unknown = [];
    for (let i = 0; i < 3; i++) {
      wrong.push(await attempt(username));
      unknown.push(await attempt(`nobody${i}`));
    }
    for (const { res } of [...wrong, ...unknown]) {
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toEqual({ error: 'Wrong username or password', code: 'invalid_credentials' });
    }
    // Both run one scrypt verification: an unknown user is not answered at once.
    for (const { verifications } of [...wrong, ...unknown]) expect(verifications).toBe(1);
  });

  it('refuses a password in the query string of /api/auth, and signs nobody in', async () => {
    const username = await newUser();
    const res = await t.raw('POST', `/api/auth/login?username=${username}&password=password123`, { key: null });
    expectErrorBody(res, 400, 'password_in_query');
    expect(res.headers.get('Set-Cookie')).toBeNull();
    const change = await t.raw('POST', '/api/auth/password?newpassword=whatever123', {
      key: null,
      headers: (await signIn(t, username)).headers,
    });
    expectErrorBody(change, 400, 'password_in_query');
  });

  it('keeps the admin API taking passwords in the query string (DaneeCloud’s clients)', async () => {
    const res = await t.api('POST', '/api/user/create', { username: unique('q'), email: 'q@example.com', password: 'password123' });
    expect(res.status).toBe(201);
  });
});

describe('guessing limits', () => {
  it('refuses the username after 5 failures, even with the right password, and only that username', async () => {
    const username = await newUser();
    const other = await newUser();
    for (let i = 0; i < 5; i++) expect((await loginFrom(t, '127.0.3.1', username, `guess-${i}-xyz`)).status).toBe(401);
    const blocked = await loginFrom(t, '127.0.3.1', username, 'password123');
    expect(blocked.status).toBe(429);
    expect(JSON.parse(blocked.text).code).toBe('too_many_attempts');
    const retry = Number(blocked.headers['retry-after']);
    expect(retry).toBeGreaterThan(14 * 60);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    // From another address too: the count is the username's.
    expect((await loginFrom(t, '127.0.3.2', username, 'password123')).status).toBe(429);
    // Case does not make another username.
    expect((await loginFrom(t, '127.0.3.2', username.toUpperCase(), 'password123')).status).toBe(429);
    // Other users are not slowed.
    expect((await loginFrom(t, '127.0.3.1', other, 'password123')).status).toBe(200);
  });

  it('refuses an address after 20 failures, whatever the username, and no other address', async () => {
    const username = await newUser();
    for (let i = 0; i < 20; i++) expect((await loginFrom(t, '127.0.4.1', `someone${i}`, 'guess-xyz-1')).status).toBe(401);
    const blocked = await loginFrom(t, '127.0.4.1', username, 'password123');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await loginFrom(t, '127.0.4.2', username, 'password123')).status).toBe(200);
  });

  it('counts a wrong current password in auth.password as a failed sign-in', async () => {
    const username = await newUser();
    const { headers } = await signIn(t, username);
    for (let i = 0; i < 5; i++) {
      const res = await api(t, 'auth.password', { password: `wrong-${i}-pass`, newpassword: 'a new passphrase' }, { key: null, headers });
      expectErrorBody(res, 401, 'invalid_credentials');
    }
    const res = await api(t, 'auth.password', { password: 'password123', newpassword: 'a new passphrase' }, { key: null, headers });
    expectErrorBody(res, 429, 'too_many_attempts');
    expect((await loginFrom(t, '127.0.5.1', username, 'password123')).status).toBe(429);
  });

  it('forgets a username’s failures after a success', async () => {
    const username = await newUser();
    for (let i = 0; i < 4; i++) await loginFrom(t, '127.0.6.1', username, `guess-${i}-xyz`);
    expect((await loginFrom(t, '127.0.6.1', username, 'password123')).status).toBe(200);
    for (let i = 0; i < 4; i++) await loginFrom(t, '127.0.6.1', username, `guess-${i}-xyz`);
    expect((await loginFrom(t, '127.0.6.1', username, 'password123')).status).toBe(200);
  });
});

describe('auth.me and auth.logout', () => {
  it('answers who calls: a session, the admin key, a machine key', async () => {
    const username = await newUser();
    const { headers } = await signIn(t, username);
    expect((await api(t, 'auth.me', {}, { key: null, headers })).body).toMatchObject({ user: { username }, admin: false });
    expect((await api(t, 'auth.me')).body).toEqual({ user: null, admin: true, canWrite: true });
    const machine = await api(t, 'keys.create', { label: unique('m'), scope: 'read' });
    expect((await api(t, 'auth.me', {}, { key: machine.body.key })).body).toEqual({ user: null, admin: true, canWrite: false });
  });

  it('says whether the caller may write: a session and a write key may, a read key may not', async () => {
    const username = await newUser();
    const { headers } = await signIn(t, username);
    const asSession = await api(t, 'auth.me', {}, { key: null, headers });
    expect(asSession.body).toMatchObject({ user: { username }, canWrite: true });
    for (const [scope, canWrite] of [
      ['write', true],
      ['read', false],
    ] as const) {
      const made = await api(t, 'keys.create', { label: unique(scope), scope, password: 'password123' }, { key: null, headers });
      expect(made.status).toBe(201);
      expect((await api(t, 'auth.me', {}, { key: made.body.key })).body).toMatchObject({ user: { username }, admin: false, canWrite });
    }
  });

  it('lets a key win over a cookie', async () => {
    const { headers } = await signIn(t, await newUser());
    expect((await api(t, 'auth.me', {}, { headers })).body).toEqual({ user: null, admin: true, canWrite: true });
  });

  it('ends the session on the server: the same cookie is refused afterwards', async () => {
    const { headers } = await signIn(t, await newUser());
    const out = await api(t, 'auth.logout', {}, { key: null, headers });
    expect(out.status).toBe(200);
    expect(out.headers.get('Set-Cookie')).toBe('nimbus_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
    const after = await api(t, 'auth.me', {}, { key: null, headers });
    expectErrorBody(after, 401, 'unauthorized');
    expect(after.headers.get('Set-Cookie')).toMatch(/^nimbus_session=; .*Max-Age=0/);
  });

  it('answers 200 to a key, with nothing to end', async () => {
    expect((await api(t, 'auth.logout')).status).toBe(200);
    expect((await api(t, 'auth.me')).status).toBe(200);
  });

  it('answers 401 to a made-up cookie', async () => {
    const res = await api(
      t,
      'auth.me',
      {},
      { key: null, headers: { Cookie: 'nimbus_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } },
    );
    expectErrorBody(res, 401, 'unauthorized');
  });
});

describe('auth.password', () => {
  it('changes the password and ends every other session of the user, not this one', async () => {
    const username = await newUser();
    const mine = await signIn(t, username);
    const other = await signIn(t, username);
    const res = await api(
      t,
      'auth.password',
      { password: 'password123', newpassword: 'correct horse battery' },
      { key: null, headers: mine.headers },
    );
    expect(res.status).toBe(200);
    expect((await api(t, 'auth.me', {}, { key: null, headers: mine.headers })).status).toBe(200);
    expect((await api(t, 'auth.me', {}, { key: null, headers: other.headers })).status).toBe(401);
    expect((await api(t, 'auth.login', { username, password: 'password123' }, { key: null })).status).toBe(401);
    expect((await api(t, 'auth.login', { username, password: 'correct horse battery' }, { key: null })).status).toBe(200);
  });

  it.each([
    ['short', 'Ab3$xyz', /at least 8/],
    ['the username', null, /username/],
    ['a common password', 'password1', /common/],
    ['a common password in capitals', 'PASSWORD1', /common/],
    ['a common password from deep in the list', 'trustno1', /common/],
  ])('refuses a new password that is %s with 400 weak_password, and keeps the old one', async (_what, next, message) => {
    const username = await newUser('password123', 'longer-name-');
    const { headers } = await signIn(t, username);
    const res = await api(
      t,
      'auth.password',
      { password: 'password123', newpassword: next ?? username.toUpperCase() },
      { key: null, headers },
    );
    expectErrorBody(res, 400, 'weak_password');
    expect((res.body as unknown as { error: string }).error).toMatch(message);
    expect((await api(t, 'auth.login', { username, password: 'password123' }, { key: null })).status).toBe(200);
  });

  it('has no password to change for the admin key', async () => {
    expectErrorBody(await api(t, 'auth.password', { password: 'whatever1', newpassword: 'whatever2x' }), 403, 'forbidden');
  });
});

describe('password reset', () => {
  it('answers the same 200 for an unknown account and mails nothing', async () => {
    const before = (await readOutbox(t.dataDir)).length;
    const known = await api(t, 'auth.reset', { username: await newUser() }, { key: null });
    const unknown = await api(t, 'auth.reset', { username: 'no-such-user' }, { key: null });
    const byMail = await api(t, 'auth.reset', { email: 'nobody@example.org' }, { key: null });
    expect(known.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    expect(byMail.body).toEqual(known.body);
    await vi.waitFor(async () => expect((await readOutbox(t.dataDir)).length).toBe(before + 1), { timeout: 5000, interval: 20 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await readOutbox(t.dataDir)).length).toBe(before + 1);
  });

  it('mails a single-use link to <base URL>/reset that sets the password and ends every session', async () => {
    const username = await newUser();
    const session = await signIn(t, username);
    await api(t, 'auth.reset', { email: `${username.toUpperCase()}@EXAMPLE.COM` }, { key: null });
    const [token] = await resetTokens(t, `${username}@example.com`);
    const mail = decodeQuotedPrintable((await readOutbox(t.dataDir)).find((m) => m.includes(token))!);
    expect(mail).toContain(`${t.url}/reset?token=${token}`);
    expect(await readDbText(t)).not.toContain(token);
    const res = await api(t, 'auth.reset.confirm', { token, newpassword: 'brand new phrase' }, { key: null });
    expect(res.status).toBe(200);
    expect((await api(t, 'auth.me', {}, { key: null, headers: session.headers })).status).toBe(401);
    expect((await api(t, 'auth.login', { username, password: 'brand new phrase' }, { key: null })).status).toBe(200);
    expectErrorBody(await api(t, 'auth.reset.confirm', { token, newpassword: 'another new phrase' }, { key: null }), 400, 'invalid_token');
  });

  it('keeps the link usable after a weak choice', async () => {
    const username = await newUser();
    await api(t, 'auth.reset', { username }, { key: null });
    const [token] = await resetTokens(t, `${username}@example.com`);
    expectErrorBody(await api(t, 'auth.reset.confirm', { token, newpassword: 'qwerty123' }, { key: null }), 400, 'weak_password');
    expect((await api(t, 'auth.reset.confirm', { token, newpassword: 'not so common phrase' }, { key: null })).status).toBe(200);
  });

  it('replaces an earlier link with a new one', async () => {
    const username = await newUser();
    await api(t, 'auth.reset', { username }, { key: null });
    await api(t, 'auth.reset', { username }, { key: null });
    const [first, second] = await resetTokens(t, `${username}@example.com`, 2);
    expectErrorBody(
      await api(t, 'auth.reset.confirm', { token: first, newpassword: 'brand new phrase' }, { key: null }),
      400,
      'invalid_token',
    );
    expect((await api(t, 'auth.reset.confirm', { token: second, newpassword: 'brand new phrase' }, { key: null })).status).toBe(200);
  });

  it('sends at most 5 mails per user per hour, answering 200 all the same', async () => {
    const username = await newUser();
    for (let i = 0; i < 7; i++) expect((await api(t, 'auth.reset', { username }, { key: null })).status).toBe(200);
    await resetTokens(t, `${username}@example.com`, 5);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await resetTokens(t, `${username}@example.com`)).toHaveLength(5);
  });

  it('refuses an expired link', async () => {
    const own = await startTestDaemon();
    try {
      await createUser(own, 'ana');
      await api(own, 'auth.reset', { username: 'ana' }, { key: null });
      const [token] = await resetTokens(own, 'ana@example.com');
      await own.stop();
      await editDb(own, (db) => {
        db.resets[0].expiresAt = new Date(Date.now() - 1000).toISOString();
      });
      await own.restart();
      expectErrorBody(
        await api(own, 'auth.reset.confirm', { token, newpassword: 'brand new phrase' }, { key: null }),
        400,
        'invalid_token',
      );
    } finally {
      await own.close();
    }
  });
});

describe('auth.register', () => {
  let open: TestDaemon;
  beforeAll(async () => {
    open = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } });
  });
  afterAll(async () => {
    await open?.close();
  });

  it('is closed by default, before looking at anything', async () => {
    expectErrorBody(await apiLoose(t, 'auth.register', {}, { key: null }), 403, 'registration_closed');
    expect((await api(t, 'user.all')).body.some((u: { username: string }) => u.username === 'newcomer')).toBe(false);
  });

  it('creates a user with role "user", signs them in and mails the verification link', async () => {
    const res = await api(
      open,
      'auth.register',
      { username: 'newcomer', email: 'new@example.com', password: 'my own passphrase' },
      { key: null },
    );
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ username: 'newcomer', role: 'user', emailVerified: false });
    const cookie = sessionCookie(res)!;
    expect((await api(open, 'auth.me', {}, { key: null, headers: { Cookie: cookie } })).body).toMatchObject({
      user: { username: 'newcomer' },
      admin: false,
    });
    const mail = (await readOutbox(open.dataDir)).find((m) => m.includes('To: new@example.com'));
    expect(verifyLink(mail ?? '')).not.toBeNull();
  });

  it('holds the chosen password to the rules', async () => {
    const res = await api(open, 'auth.register', { username: 'weakling', email: 'w@example.com', password: 'iloveyou' }, { key: null });
    expectErrorBody(res, 400, 'weak_password');
    expectErrorBody(await api(open, 'user.get', { username: 'weakling' }), 404, 'user_not_found');
  });
});

describe('cross-site requests', () => {
  it('refuses a cookie POST from another origin, or with neither Origin nor Sec-Fetch-Site, and changes nothing', async () => {
    const username = await newUser();
    const { cookie } = await signIn(t, username);
    const before = await readDbText(t);
    for (const headers of <Record<string, string>[]>[
      { Cookie: cookie, Origin: 'https://evil.example' },
      { Cookie: cookie },
      { Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' },
      { Cookie: cookie, Origin: 'null' },
    ]) {
      const res = await api(t, 'folders.create', { username, folder: 'docs' }, { key: null, headers });
      expectErrorBody(res, 403, 'cross_site_request');
    }
    expect(await readDbText(t)).toBe(before);
    expect((await api(t, 'folders.list', { username })).body.folders).toEqual([]);
  });

  it('accepts the daemon’s own origin, or Sec-Fetch-Site: same-origin', async () => {
    const username = await newUser();
    const { cookie } = await signIn(t, username);
    const own = await api(
      t,
      'folders.create',
      { username, folder: 'a' },
      { key: null, headers: { Cookie: cookie, Origin: `http://localhost:${t.port}` } },
    );
    expect(own.status).toBe(201);
    const fetchMeta = await api(
      t,
      'folders.create',
      { username, folder: 'b' },
      { key: null, headers: { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' } },
    );
    expect(fetchMeta.status).toBe(201);
  });

  it('lets a cookie GET through from anywhere (it changes nothing), and key POSTs whatever their Origin', async () => {
    const username = await newUser();
    const { cookie } = await signIn(t, username);
    expect((await api(t, 'folders.list', { username }, { key: null, headers: { Cookie: cookie } })).status).toBe(200);
    const keyed = await api(t, 'folders.create', { username, folder: 'k' }, { headers: { Origin: 'https://evil.example' } });
    expect(keyed.status).toBe(201);
  });

  it('refuses a sign-in posted from another site’s page (login CSRF), but not one without an Origin', async () => {
    const username = await newUser();
    const res = await api(
      t,
      'auth.login',
      { username, password: 'password123' },
      { key: null, headers: { Origin: 'https://evil.example' } },
    );
    expectErrorBody(res, 403, 'cross_site_request');
    expect(res.headers.get('Set-Cookie')).toBeNull();
    expect((await api(t, 'auth.login', { username, password: 'password123' }, { key: null })).status).toBe(200);
  });

  it('counts NIMBUS_PUBLIC_URL as the daemon’s own origin', async () => {
    const proxied = await startTestDaemon({ env: { NIMBUS_PUBLIC_URL: 'https://files.example.com/' } });
    try {
      await createUser(proxied, 'ana');
      const { cookie } = await signIn(proxied, 'ana');
      const res = await api(
        proxied,
        'folders.create',
        { username: 'ana', folder: 'x' },
        { key: null, headers: { Cookie: cookie, Origin: 'https://files.example.com' } },
      );
      expect(res.status).toBe(201);
    } finally {
      await proxied.close();
    }
  });
});
