/**
 * Guessing passwords (docs/accounts.md, "Guessing passwords"): 5 failures for a username or
 * 20 from an address within 15 minutes answer 429 too_many_attempts with Retry-After, even
 * for the right password; other usernames and addresses are never slowed; a success clears
 * the username's count. Each test is its own "client" (a 127.0.0.x address).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { call, codeOf, login, makeUser, passwordOf, sessionCookie, show, signIn, type Resp } from '../helpers/accounts.js';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

const WINDOW_S = 15 * 60;

function expectBlocked(res: Resp, what: string) {
  expect(res.status, `${what}: ${show(res)}`).toBe(429);
  expect(codeOf(res)).toBe('too_many_attempts');
  const wait = Number(res.headers['retry-after']);
  expect(Number.isInteger(wait), `Retry-After ${res.headers['retry-after']}`).toBe(true);
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(WINDOW_S);
  expect(sessionCookie(res), 'no session on a 429').toBeNull();
}

async function fail(username: string, from: string, headers: Record<string, string> = {}) {
  const { res } = await login(t, username, 'definitely-wrong-1', { from, headers });
  return res;
}

describe('per username', () => {
  it('answers 429 with Retry-After after 5 failures, even for the right password and from another address', async () => {
    await makeUser(t, 'vic');
    for (let i = 0; i < 5; i++) {
      const res = await fail('vic', '127.0.2.1');
      expect(res.status, `failure ${i + 1}: ${show(res)}`).toBe(401);
    }
    expectBlocked(await fail('vic', '127.0.2.1'), 'a 6th wrong guess');
    expectBlocked((await login(t, 'vic', passwordOf('vic'), { from: '127.0.2.1' })).res, 'the right password');
    expectBlocked((await login(t, 'vic', passwordOf('vic'), { from: '127.0.2.2' })).res, 'the right password from another address');
  });

  it('counts the username case-folded', async () => {
    await makeUser(t, 'kim');
    for (const name of ['kim', 'KIM', 'Kim', 'kIm', 'kiM']) expect((await fail(name, '127.0.2.10')).status).toBe(401);
    expectBlocked((await login(t, 'kim', passwordOf('kim'), { from: '127.0.2.11' })).res, 'kim after 5 failures in 5 spellings');
  });

  it('leaves other usernames from the same client alone', async () => {
    await makeUser(t, 'wes');
    await makeUser(t, 'wyn');
    for (let i = 0; i < 5; i++) await fail('wyn', '127.0.2.20');
    expectBlocked(await fail('wyn', '127.0.2.20'), 'wyn');
    expect((await fail('wes', '127.0.2.20')).status, 'a wrong guess for another user is an ordinary 401').toBe(401);
    const ok = await login(t, 'wes', passwordOf('wes'), { from: '127.0.2.20' });
    expect(ok.res.status, show(ok.res)).toBe(200);
  });

  it('counts a wrong current password in auth.password as a failed sign-in', async () => {
    await makeUser(t, 'pat');
    const cookie = await signIn(t, 'pat', passwordOf('pat'), { from: '127.0.2.30' });
    for (let i = 0; i < 5; i++) {
      const res = await call(t, '/api/auth/password', {
        cookie,
        body: { password: `wrong-current-${i}`, newpassword: 'Brand-new-pw-4411' },
        from: '127.0.2.30',
      });
      expect(res.status, show(res)).toBe(401);
      expect(codeOf(res)).toBe('invalid_credentials');
    }
    expectBlocked((await login(t, 'pat', passwordOf('pat'), { from: '127.0.2.31' })).res, 'pat after 5 wrong current passwords');
    const sixth = await call(t, '/api/auth/password', {
      cookie,
      body: { password: passwordOf('pat'), newpassword: 'Brand-new-pw-4411' },
      from: '127.0.2.30',
    });
    expect(sixth.status, `auth.password with the right current password while blocked: ${show(sixth)}`).toBe(429);
  });

  it('clears the username’s count on a success', async () => {
    await makeUser(t, 'sue');
    for (let i = 0; i < 4; i++) expect((await fail('sue', '127.0.2.40')).status).toBe(401);
    expect((await login(t, 'sue', passwordOf('sue'), { from: '127.0.2.40' })).res.status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await fail('sue', '127.0.2.41')).status, `failure ${i + 1} after the success`).toBe(401);
    expect((await login(t, 'sue', passwordOf('sue'), { from: '127.0.2.41' })).res.status).toBe(200);
  });

  it('blocks a username that does not exist in the same way (nothing told apart)', async () => {
    for (let i = 0; i < 5; i++) expect((await fail('no-such-user', '127.0.2.50')).status).toBe(401);
    expectBlocked(await fail('no-such-user', '127.0.2.50'), 'an unknown user after 5 failures');
  });
});

describe('per address', () => {
  it('answers 429 after 20 failures from one address across usernames; other addresses and open sessions are not slowed', async () => {
    await makeUser(t, 'amy');
    await makeUser(t, 'ben');
    const from = '127.0.3.1';
    const benCookie = await signIn(t, 'ben', passwordOf('ben'), { from });
    for (let i = 0; i < 20; i++) {
      // 4 per name at most, so no username limit is reached; each with a made-up
      // X-Forwarded-For and X-Real-IP, which must not spread the guesses over other "clients".
      const res = await fail(`spray-${i % 5}`, from, { 'X-Forwarded-For': `10.9.0.${i}`, 'X-Real-IP': `10.8.0.${i}` });
      expect(res.status, `failure ${i + 1}: ${show(res)}`).toBe(401);
    }
    expectBlocked(await fail('spray-new', from, { 'X-Forwarded-For': '10.9.9.9' }), 'a 21st guess for a fresh name');
    expectBlocked((await login(t, 'amy', passwordOf('amy'), { from })).res, 'amy’s right password from the blocked address');
    const elsewhere = await login(t, 'amy', passwordOf('amy'), { from: '127.0.3.2' });
    expect(elsewhere.res.status, `amy from another address: ${show(elsewhere.res)}`).toBe(200);
    // The username counts of the sprayed names were 4 each: from elsewhere they still answer 401, not 429.
    expect((await fail('spray-0', '127.0.3.3')).status).toBe(401);
    // Requests that are not sign-ins are not guesses: a session from the blocked address goes on.
    const me = await call(t, '/api/auth/me', { cookie: benCookie, from });
    expect(me.status, show(me)).toBe(200);
  });
});

describe('guesses sent at once', () => {
  const tally = (answers: { res: Resp }[]) => {
    const counts: Record<number, number> = {};
    for (const { res } of answers) counts[res.status] = (counts[res.status] ?? 0) + 1;
    return counts;
  };

  it('evaluates at most 5 for one username, however many arrive together', async () => {
    await makeUser(t, 'burst');
    // 20 wrong passwords in parallel, each from its own address (no address limit involved).
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => login(t, 'burst', `guess-${i}-wrong`, { from: `127.0.5.${i + 1}` })),
    );
    const counts = tally(answers);
    expect(counts[401] ?? 0, `answers: ${JSON.stringify(counts)} (each 401 is a password tried)`).toBeLessThanOrEqual(5);
    expect((counts[401] ?? 0) + (counts[429] ?? 0)).toBe(20);
    for (const { res } of answers.filter((a) => a.res.status === 429)) {
      expect(codeOf(res)).toBe('too_many_attempts');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it('signs in every one of the right password sent many times at once: one attempt, not a burst of guesses', async () => {
    await makeUser(t, 'twelve');
    const answers = await Promise.all(Array.from({ length: 12 }, () => login(t, 'twelve', passwordOf('twelve'), { from: '127.0.5.200' })));
    expect(tally(answers)).toEqual({ 200: 12 });
    expect(new Set(answers.map(({ res }) => sessionCookie(res))).size, 'a session each').toBe(12);
  });

  it('evaluates at most 20 from one address, however many arrive together', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => login(t, `burst-${i % 10}`, `guess-${i}-wrong`, { from: '127.0.5.100' })),
    );
    const counts = tally(answers);
    expect(counts[401] ?? 0, `answers: ${JSON.stringify(counts)} (each 401 is a password tried)`).toBeLessThanOrEqual(20);
  });
});

describe('recovery', () => {
  // The window is 15 minutes and the daemon takes no setting for it; the daemon runs in this
  // process, so its clock (Date) is moved on instead of waiting. Timers stay real.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends a username’s block by itself once Retry-After has passed (sliding window)', async () => {
    const own = await startTestDaemon();
    try {
      await makeUser(own, 'rob');
      const start = Date.now();
      for (let i = 0; i < 5; i++) expect((await login(own, 'rob', 'definitely-wrong-1', { from: '127.0.4.1' })).res.status).toBe(401);
      const blocked = (await login(own, 'rob', passwordOf('rob'), { from: '127.0.4.1' })).res;
      expectBlocked(blocked, 'rob');
      const wait = Number(blocked.headers['retry-after']);
      const elapsed = Math.ceil((Date.now() - start) / 1000);
      expect(wait, 'Retry-After: until the oldest failure leaves the 15 minutes').toBeGreaterThanOrEqual(WINDOW_S - elapsed - 1);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + (wait - 30) * 1000);
      expectBlocked((await login(own, 'rob', passwordOf('rob'), { from: '127.0.4.1' })).res, 'rob 30 s before Retry-After');
      vi.setSystemTime(Date.now() + 31 * 1000);
      const after = await login(own, 'rob', passwordOf('rob'), { from: '127.0.4.1' });
      expect(after.res.status, `rob after Retry-After: ${show(after.res)}`).toBe(200);
    } finally {
      vi.useRealTimers();
      await own.close();
    }
  });

  it('ends an address’s block by itself after the window', async () => {
    const own = await startTestDaemon();
    try {
      await makeUser(own, 'amy');
      for (let i = 0; i < 20; i++) await login(own, `spray-${i % 5}`, 'definitely-wrong-1', { from: '127.0.4.2' });
      const blocked = (await login(own, 'amy', passwordOf('amy'), { from: '127.0.4.2' })).res;
      expectBlocked(blocked, 'amy from the sprayed address');
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + (Number(blocked.headers['retry-after']) + 1) * 1000);
      const after = await login(own, 'amy', passwordOf('amy'), { from: '127.0.4.2' });
      expect(after.res.status, `after the window: ${show(after.res)}`).toBe(200);
    } finally {
      vi.useRealTimers();
      await own.close();
    }
  });
});
