/**
 * Password reset, registration and the password rules (docs/accounts.md, "Password reset",
 * "Passwords", NIMBUS_REGISTRATION, NIMBUS_REQUIRE_VERIFIED), with a real SMTP server.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { editDb, readDb, readDbText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';
import { resetLink, startSmtp, verifyLink, type Smtp } from '../helpers/mail.js';
import {
  call,
  codeOf,
  COOKIE,
  login,
  makeKey,
  makeUser,
  passwordOf,
  sessionCookie,
  setRole,
  show,
  signIn,
  uploadAs,
} from '../helpers/accounts.js';

let smtp: Smtp;
beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp.close());

const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));
const reset = (t: TestDaemon, params: Record<string, string>) => call(t, '/api/auth/reset', { body: params });
const confirm = (t: TestDaemon, token: string, newpassword: string) => call(t, '/api/auth/reset/confirm', { body: { token, newpassword } });

/** Asks for a reset of `username` and returns the token of the newest link mailed to `email`. */
async function resetToken(t: TestDaemon, username: string, email = `${username}@example.com`): Promise<string> {
  const before = mailsTo(email).length;
  const res = await reset(t, { username });
  expect(res.status, show(res)).toBe(200);
  await vi.waitFor(() => expect(mailsTo(email).length).toBeGreaterThan(before), { timeout: 3000 });
  const link = resetLink(mailsTo(email).at(-1)!.raw);
  expect(link, 'a /reset?token= link in the mail').not.toBeNull();
  return link!.searchParams.get('token')!;
}

describe('password reset', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_SMTP_URL: smtp.url, NIMBUS_MAIL_FROM: 'Nimbus <nimbus@test.example>' } });
  });
  afterAll(() => t.close());

  it('answers the same 200 for a known user, an unknown user, a known and an unknown e-mail', async () => {
    await makeUser(t, 'ria');
    const answers = [
      await reset(t, { username: 'ria' }),
      await reset(t, { username: 'nobody-at-all' }),
      await reset(t, { email: 'ria@example.com' }),
      await reset(t, { email: 'nobody@example.com' }),
    ];
    for (const res of answers) {
      expect(res.status, show(res)).toBe(200);
      expect(Object.keys(res.body)).toEqual(['msg']);
      expect(res.text).toBe(answers[0].text);
      expect(sessionCookie(res)).toBeNull();
    }
    await vi.waitFor(() => expect(mailsTo('ria@example.com').length).toBe(2), { timeout: 3000 });
    await new Promise((r) => setTimeout(r, 100));
    expect(mailsTo('nobody@example.com')).toHaveLength(0);
  });

  it('answers an account that exists without waiting for its mail (no enumeration by timing)', async () => {
    // The answer is the same either way, and the time must not tell either: the mail only an
    // existing account gets goes out after the answer. An SMTP server that holds every mail
    // shows it without timing anything: the answer arrives while the mail is still held.
    const held = await startSmtp({ hold: true });
    const d = await startTestDaemon({ env: { NIMBUS_SMTP_URL: held.url, NIMBUS_MAIL_FROM: 'Nimbus <nimbus@test.example>' } });
    try {
      await makeUser(d, 'tm0');
      const res = await reset(d, { username: 'tm0' });
      expect(res.status, show(res)).toBe(200);
      expect(held.received).toHaveLength(0);
      held.release();
      await vi.waitFor(() => expect(held.received.map((m) => m.to)).toEqual([['tm0@example.com']]), { timeout: 5000 });
    } finally {
      held.release();
      await d.close();
      await held.close();
    }
  });

  it('mails <base URL>/reset?token=<32 random bytes> and stores only its hash', async () => {
    await makeUser(t, 'rex');
    const token = await resetToken(t, 'rex');
    const mail = mailsTo('rex@example.com').at(-1)!.raw;
    const link = resetLink(mail)!;
    expect(link.origin).toBe(t.url);
    expect(link.pathname).toBe('/reset');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await readDbText(t)).not.toContain(token);
  });

  it('confirm sets the password once: the second use is 400 invalid_token', async () => {
    await makeUser(t, 'ron');
    const token = await resetToken(t, 'ron');
    const res = await confirm(t, token, 'Reset-chosen-pw-1');
    expect(res.status, show(res)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['msg']);
    expect((await login(t, 'ron', 'Reset-chosen-pw-1')).res.status).toBe(200);
    expect((await login(t, 'ron', passwordOf('ron'), { from: '127.0.8.1' })).res.status).toBe(401);
    const again = await confirm(t, token, 'Reset-chosen-pw-2');
    expect(again.status, show(again)).toBe(400);
    expect(codeOf(again)).toBe('invalid_token');
    expect((await login(t, 'ron', 'Reset-chosen-pw-2', { from: '127.0.8.2' })).res.status).toBe(401);
  });

  it('answers 400 invalid_token for a token never issued', async () => {
    const res = await confirm(t, 'A'.repeat(43), 'Whatever-pw-0912');
    expect(res.status, show(res)).toBe(400);
    expect(codeOf(res)).toBe('invalid_token');
  });

  it('revokes every session of the user, and their streams, on confirm', async () => {
    await makeUser(t, 'rae');
    const a = await signIn(t, 'rae', passwordOf('rae'));
    const b = await signIn(t, 'rae', passwordOf('rae'));
    const stream = await openEventStream(t.url, { Cookie: `${COOKIE}=${a}` });
    try {
      const token = await resetToken(t, 'rae');
      expect((await confirm(t, token, 'After-reset-pw-3')).status).toBe(200);
      for (const cookie of [a, b]) expect((await call(t, '/api/auth/me', { cookie })).status).toBe(401);
      await vi.waitFor(() => expect(stream.ended()).toBe(true), { timeout: 3000 });
    } finally {
      await stream.close();
    }
  });

  it('a new request replaces the earlier token', async () => {
    await makeUser(t, 'ray');
    const first = await resetToken(t, 'ray');
    const second = await resetToken(t, 'ray');
    expect(second).not.toBe(first);
    expect(codeOf(await confirm(t, first, 'Replaced-pw-551'))).toBe('invalid_token');
    expect((await confirm(t, second, 'Replaced-pw-552')).status).toBe(200);
  });

  it('sends at most 5 mails per user per hour (more are silently not sent, same answer)', async () => {
    await makeUser(t, 'rio');
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await reset(t, { username: 'rio' }));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.text).toBe(answers[0].text);
    }
    await vi.waitFor(() => expect(mailsTo('rio@example.com').length).toBeGreaterThanOrEqual(5), { timeout: 3000 });
    await new Promise((r) => setTimeout(r, 200));
    expect(mailsTo('rio@example.com')).toHaveLength(5);
  });

  it('a token of a deleted user does not reset the new user who takes the name', async () => {
    await makeUser(t, 'zed');
    const token = await resetToken(t, 'zed');
    expect((await call(t, '/api/user/delete', { key: t.key, body: { username: 'zed' } })).status).toBe(200);
    await makeUser(t, 'zed', 'Second-zed-pw-881', 'zed2@example.com');
    const res = await confirm(t, token, 'Hijacked-pw-0001');
    expect(res.status, `the old zed’s token on the new zed: ${show(res)}`).toBe(400);
    expect(codeOf(res)).toBe('invalid_token');
    expect((await login(t, 'zed', 'Second-zed-pw-881')).res.status).toBe(200);
  });

  it('a token mailed before a rename still resets the same person (not whoever has the old name)', async () => {
    await makeUser(t, 'yan');
    const token = await resetToken(t, 'yan');
    expect(
      (await call(t, '/api/user/edit', { key: t.key, body: { username: 'yan', newusername: 'yanis', newemail: 'yan@example.com' } }))
        .status,
    ).toBe(201);
    await makeUser(t, 'yan', 'Other-yan-pw-7781', 'other-yan@example.com');
    const res = await confirm(t, token, 'Renamed-reset-pw-1');
    if (res.status === 200) expect((await login(t, 'yanis', 'Renamed-reset-pw-1')).res.status).toBe(200);
    else expect(codeOf(res)).toBe('invalid_token');
    expect((await login(t, 'yan', 'Other-yan-pw-7781')).res.status, 'the new yan keeps their password').toBe(200);
  });

  it('holds to 5 mails an hour when the requests arrive together', async () => {
    await makeUser(t, 'rush');
    const answers = await Promise.all(Array.from({ length: 10 }, () => reset(t, { username: 'rush' })));
    for (const res of answers) expect(res.status).toBe(200);
    await vi.waitFor(() => expect(mailsTo('rush@example.com').length).toBeGreaterThanOrEqual(5), { timeout: 3000 });
    await new Promise((r) => setTimeout(r, 200));
    expect(mailsTo('rush@example.com')).toHaveLength(5);
  });

  it('uses a token once even when two confirmations race', async () => {
    await makeUser(t, 'race');
    const token = await resetToken(t, 'race');
    const [a, b] = await Promise.all([confirm(t, token, 'Race-winner-pw-1'), confirm(t, token, 'Race-winner-pw-2')]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
  });

  it('refuses a token past its hour (expiry kept in the store)', async () => {
    await makeUser(t, 'old');
    const token = await resetToken(t, 'old');
    const db = await readDb(t);
    const entry = (db.resets as { username: string; expiresAt: string }[]).find((r) => r.username === 'old')!;
    expect(Date.parse(entry.expiresAt) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(Date.parse(entry.expiresAt) - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    await t.stop();
    await editDb(t, (stored) => {
      (stored.resets as { username: string; expiresAt: string }[]).find((r) => r.username === 'old')!.expiresAt = new Date(
        Date.now() - 1000,
      ).toISOString();
    });
    await t.restart();
    const res = await confirm(t, token, 'Too-late-pw-8812');
    expect(res.status, show(res)).toBe(400);
    expect(codeOf(res)).toBe('invalid_token');
    expect((await login(t, 'old', passwordOf('old'))).res.status).toBe(200);
  });
});

describe('password rules for passwords a user chooses', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_SMTP_URL: smtp.url, NIMBUS_REGISTRATION: 'open' } });
  });
  afterAll(() => t.close());

  /** Weak for `username`: common (in any case), the name itself (in any case), under 8 characters. */
  const weak = (username: string) => ['password', 'PASSWORD', 'qwertyuiop', '12345678', username, username.toUpperCase(), 'Ab1!xyz'];

  it('register refuses each with 400 weak_password', async () => {
    for (const password of weak('longname1')) {
      const res = await call(t, '/api/auth/register', { body: { username: 'longname1', email: 'l@example.com', password } });
      expect(res.status, `${password}: ${show(res)}`).toBe(400);
      expect(codeOf(res), password).toBe('weak_password');
      expect(sessionCookie(res)).toBeNull();
    }
    expect((await call(t, '/api/user', { key: t.key, query: { username: 'longname1' } })).status).toBe(404);
  });

  it('auth.password refuses each with 400 weak_password and keeps the password', async () => {
    await makeUser(t, 'pwuser01');
    const cookie = await signIn(t, 'pwuser01', passwordOf('pwuser01'));
    for (const newpassword of weak('pwuser01')) {
      const res = await call(t, '/api/auth/password', { cookie, body: { password: passwordOf('pwuser01'), newpassword } });
      expect(res.status, `${newpassword}: ${show(res)}`).toBe(400);
      expect(codeOf(res), newpassword).toBe('weak_password');
    }
    expect((await login(t, 'pwuser01', passwordOf('pwuser01'))).res.status).toBe(200);
  });

  it('auth.reset.confirm refuses each with 400 weak_password; the token still works afterwards', async () => {
    await makeUser(t, 'rsuser01');
    const token = await resetToken(t, 'rsuser01');
    for (const newpassword of weak('rsuser01')) {
      const res = await confirm(t, token, newpassword);
      expect(res.status, `${newpassword}: ${show(res)}`).toBe(400);
      expect(codeOf(res), newpassword).toBe('weak_password');
    }
    expect((await login(t, 'rsuser01', passwordOf('rsuser01'))).res.status).toBe(200);
    expect((await confirm(t, token, 'Finally-strong-91')).status).toBe(200);
  });

  it('an admin may still set any password of 8 characters (user.create, user.edit)', async () => {
    const res = await call(t, '/api/user/create', {
      key: t.key,
      body: { username: 'given', email: 'g@example.com', password: 'password' },
    });
    expect(res.status, show(res)).toBe(201);
    expect((await login(t, 'given', 'password')).res.status).toBe(200);
  });
});

describe('registration', () => {
  it('is closed by default: 403 registration_closed, no user, no cookie', async () => {
    const t = await startTestDaemon();
    try {
      const res = await call(t, '/api/auth/register', {
        body: { username: 'newbie', email: 'n@example.com', password: 'Newbie-pw-77123' },
      });
      expect(res.status, show(res)).toBe(403);
      expect(codeOf(res)).toBe('registration_closed');
      expect(sessionCookie(res)).toBeNull();
      expect((await call(t, '/api/user', { key: t.key, query: { username: 'newbie' } })).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('with NIMBUS_REGISTRATION=open: 201 {msg, user} with role user, a working session cookie, a verification mail', async () => {
    const t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open', NIMBUS_SMTP_URL: smtp.url } });
    try {
      const res = await call(t, '/api/auth/register', {
        body: { username: 'newbie', email: 'newbie@example.com', password: 'Newbie-pw-77123' },
      });
      expect(res.status, show(res)).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['msg', 'user']);
      expect(res.body.user).toMatchObject({ username: 'newbie', email: 'newbie@example.com', role: 'user', emailVerified: false });
      const c = sessionCookie(res)!;
      expect(c, 'a session cookie').not.toBeNull();
      expect(c.attrs.has('httponly')).toBe(true);
      expect(c.attrs.get('samesite')?.toLowerCase()).toBe('strict');
      const me = await call(t, '/api/auth/me', { cookie: c.value });
      expect(me.body).toMatchObject({ user: { username: 'newbie' }, admin: false });
      await vi.waitFor(() => expect(mailsTo('newbie@example.com').length).toBeGreaterThan(0), { timeout: 3000 });
      const link = verifyLink(mailsTo('newbie@example.com').at(-1)!.raw);
      expect(link?.pathname).toBe('/verify');
      // The name is taken now, in any case.
      for (const username of ['newbie', 'NewBie']) {
        const again = await call(t, '/api/auth/register', { body: { username, email: 'x@example.com', password: 'Another-pw-66123' } });
        expect(again.status, `${username}: ${show(again)}`).toBe(409);
      }
      // Two at once for one name: one account.
      const twins = await Promise.all(
        [1, 2].map((i) =>
          call(t, '/api/auth/register', { body: { username: 'twin', email: `t${i}@example.com`, password: 'Twin-pw-55123' } }),
        ),
      );
      expect(twins.map((r) => r.status).sort()).toEqual([201, 409]);
      // Registering cannot make an admin, whatever the body says.
      const sneaky = await call(t, '/api/auth/register', {
        body: { username: 'sneaky', email: 's@example.com', password: 'Sneaky-pw-66123', role: 'admin' },
      });
      expect([201, 400]).toContain(sneaky.status);
      if (sneaky.status === 201) expect(sneaky.body.user.role).toBe('user');
    } finally {
      await t.close();
    }
  });
});

describe('auth.options', () => {
  it('tells anyone whether registration is open and verification required, and nothing else', async () => {
    const closed = await startTestDaemon();
    const open = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open', NIMBUS_REQUIRE_VERIFIED: '1' } });
    try {
      const a = await call(closed, '/api/auth/options');
      expect(a.status, show(a)).toBe(200);
      expect(a.body).toEqual({ registration: 'closed', requireVerified: false, mailDelivery: 'outbox' });
      expect((await call(open, '/api/auth/options')).body).toEqual({ registration: 'open', requireVerified: true, mailDelivery: 'outbox' });
    } finally {
      await Promise.all([closed.close(), open.close()]);
    }
  });
});

describe('NIMBUS_REQUIRE_VERIFIED=1', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_REQUIRE_VERIFIED: '1', NIMBUS_SMTP_URL: smtp.url } });
  });
  afterAll(() => t.close());

  it('an unverified user may sign in and read but not upload or share (403 email_not_verified), by session or key', async () => {
    await makeUser(t, 'unv');
    await uploadAs(t, { key: t.key }, 'unv', 'given.txt', 'by the admin');
    const cookie = await signIn(t, 'unv', passwordOf('unv'));
    const key = await makeKey(t, { cookie }, 'unv-key', 'write');
    for (const cred of [{ cookie }, { key }]) {
      const up = await uploadAs(t, cred, 'unv', `mine-${cred.key ? 'k' : 'c'}.txt`, 'x');
      expect(up.status, show(up)).toBe(403);
      expect(codeOf(up)).toBe('email_not_verified');
      const share = await call(t, '/api/files/share', { ...cred, body: { username: 'unv', file: 'given.txt' } });
      expect(share.status, show(share)).toBe(403);
      expect(codeOf(share)).toBe('email_not_verified');
      expect((await call(t, '/api/files', { ...cred, query: { username: 'unv' } })).status).toBe(200);
      const down = await call(t, '/api/files/download', { ...cred, query: { username: 'unv', file: 'given.txt' } });
      expect(down.status).toBe(200);
      expect(down.text).toBe('by the admin');
    }
    // …and verify: then both work.
    const verify = await call(t, '/api/user/verify', { cookie, body: { username: 'unv' } });
    expect(verify.status, show(verify)).toBe(200);
    await vi.waitFor(() => expect(mailsTo('unv@example.com').length).toBeGreaterThan(0), { timeout: 3000 });
    const link = verifyLink(mailsTo('unv@example.com').at(-1)!.raw)!;
    expect((await call(t, `${link.pathname}${link.search}`)).status).toBe(200);
    expect((await uploadAs(t, { cookie }, 'unv', 'after.txt', 'ok')).status).toBe(201);
    expect((await call(t, '/api/files/share', { cookie, body: { username: 'unv', file: 'after.txt' } })).status).toBe(201);
  });

  it('a verified user who changes their e-mail must verify again before uploading', async () => {
    await makeUser(t, 'chg');
    const cookie = await signIn(t, 'chg', passwordOf('chg'));
    await call(t, '/api/user/verify', { cookie, body: { username: 'chg' } });
    await vi.waitFor(() => expect(mailsTo('chg@example.com').length).toBeGreaterThan(0), { timeout: 3000 });
    const link = verifyLink(mailsTo('chg@example.com').at(-1)!.raw)!;
    expect((await call(t, `${link.pathname}${link.search}`)).status).toBe(200);
    expect((await uploadAs(t, { cookie }, 'chg', 'one.txt', 'x')).status).toBe(201);
    const edit = await call(t, '/api/user/edit', {
      cookie,
      body: { username: 'chg', newusername: 'chg', newemail: 'chg@new.example', password: passwordOf('chg') },
    });
    expect(edit.status, show(edit)).toBe(201);
    expect(edit.body.user.emailVerified).toBe(false);
    const up = await uploadAs(t, { cookie }, 'chg', 'two.txt', 'x');
    expect(up.status, show(up)).toBe(403);
    expect(codeOf(up)).toBe('email_not_verified');
  });

  it('does not hold back admins: the admin key for an unverified user, an unverified admin-role user', async () => {
    await makeUser(t, 'unv2');
    expect((await uploadAs(t, { key: t.key }, 'unv2', 'a.txt', 'x')).status).toBe(201);
    expect((await call(t, '/api/files/share', { key: t.key, body: { username: 'unv2', file: 'a.txt' } })).status).toBe(201);
    await makeUser(t, 'boss');
    await setRole(t, 'boss', 'admin');
    const cookie = await signIn(t, 'boss', passwordOf('boss'));
    const up = await uploadAs(t, { cookie }, 'boss', 'b.txt', 'x');
    expect(up.status, show(up)).toBe(201);
  });
});
