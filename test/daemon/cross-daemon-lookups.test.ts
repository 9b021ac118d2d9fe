/**
 * Issue 23, item 5: what one daemon of a cluster made, another finds at once, with no wait for
 * its notification. Two daemons on one PostgreSQL database and one bucket; each round makes
 * something through A and uses it through B in the very next request: signing in as a user
 * created on A, asking B for a reset mail for them, opening a share link made on A,
 * confirming a verification link A mailed, registering a name A just gave away (409, never a
 * second account). Every round must hold, not most: the window is the notification's delay.
 * And a link's download limit (issue 27) holds across both: the database counts, not a daemon.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, codeOf, login, makeUser, passwordOf, show } from '../helpers/accounts.js';
import { eventually } from '../helpers/cluster.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';
import { readOutbox, resetLink, verifyLink } from '../helpers/mail.js';

const ROUNDS = 20;

describe('two daemons: a record made on A is found on B at once', () => {
  let a: TestDaemon;
  let b: TestDaemon;

  beforeAll(async () => {
    // One database and one bucket for both (`embedded` keeps the helper from making fresh ones).
    const env = { ...(await clusterEnv()), NIMBUS_REGISTRATION: 'open' };
    a = await startTestDaemon({ env, backend: 'embedded' });
    b = await startTestDaemon({ env, backend: 'embedded' });
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('signs in through B a user created through A a moment ago, every round', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const username = `signin${i}`;
      await makeUser(a, username);
      const { res, cookie } = await login(b, username, passwordOf(username));
      expect(res.status, `round ${i}: ${show(res)}`).toBe(200);
      expect(cookie).not.toBeNull();
    }
  });

  it('mails through B a reset link for a user created through A a moment ago, every round', async () => {
    const names = Array.from({ length: ROUNDS }, (_, i) => `resetme${i}`);
    for (const username of names) {
      await makeUser(a, username);
      const res = await call(b, '/api/auth/reset', { body: { username } });
      expect(res.status, show(res)).toBe(200);
    }
    // The mail goes out after the answer (it must not tell who exists): B's outbox gets one for each.
    await eventually('B mailed every reset link', async () => {
      const mails = await readOutbox(b.dataDir);
      return names.every((username) => mails.some((mail) => mail.includes(`To: ${username}@example.com`) && resetLink(mail) !== null));
    });
  });

  it('opens through B a share link made through A a moment ago, every round, and counts none as an unknown link', async () => {
    // One client for every request: B allows it 20 unknown links a minute (then 429).
    const from = '127.0.0.5';
    await makeUser(a, 'sharer');
    for (let i = 0; i < ROUNDS; i++) {
      await upload(a, 'sharer', `shared${i}.txt`, `shared bytes ${i}`);
      const shared = await a.api('POST', '/api/files/share', { username: 'sharer', file: `shared${i}.txt` });
      expect(shared.status, shared.text).toBe(201);
      const token = new URL(shared.body.file.shareUrl as string).pathname.split('/').pop()!;
      const res = await call(b, `/s/${token}`, { query: { download: '1' }, from });
      expect(res.status, `round ${i}: ${show(res)}`).toBe(200);
      expect(res.text).toBe(`shared bytes ${i}`);
    }
    // The links that worked used none of the client's allowance for links that do not: all 21
    // of these are answered 404 (the 21st is the one that blocks what comes after it).
    for (let i = 0; i < 21; i++) {
      const res = await call(b, `/s/no-such-link-${i}`, { query: { download: '1' }, from });
      expect(res.status, `unknown link ${i}: ${show(res)}`).toBe(404);
    }
  });

  it('confirms through B a verification link A mailed a moment ago, every round', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const username = `verifyme${i}`;
      await makeUser(a, username);
      const sent = await a.api('POST', '/api/user/verify', { username });
      expect(sent.status, sent.text).toBe(200);
      // The newest: a new link replaces the user's earlier one.
      const mail = (await readOutbox(a.dataDir)).filter((m) => m.includes(`Hello ${username},`)).pop();
      const link = verifyLink(mail ?? '');
      expect(link, `round ${i}: no verification mail`).not.toBeNull();
      const res = await call(b, '/verify', { query: { token: link!.searchParams.get('token')! } });
      expect(res.status, `round ${i}: ${show(res)}`).toBe(200);
      expect((await b.api('GET', '/api/user', { username })).body.emailVerified).toBe(true);
    }
  });

  it('answers a registration through B of a name just registered through A 409 user_exists, never a second account', async () => {
    // Registrations are capped per address: each round comes from its own.
    for (let i = 0; i < ROUNDS; i++) {
      const username = `newbie${i}`;
      const from = `127.0.0.${10 + i}`;
      const body = { username, email: `${username}@example.com`, password: passwordOf(username) };
      const first = await call(a, '/api/auth/register', { body, from });
      expect(first.status, show(first)).toBe(201);
      const second = await call(b, '/api/auth/register', { body: { ...body, email: `other-${username}@example.com` }, from });
      expect(second.status, `round ${i}: ${show(second)}`).toBe(409);
      expect(codeOf(second)).toBe('user_exists');
      const user = await b.api('GET', '/api/user', { username });
      expect(user.body.email).toBe(`${username}@example.com`);
    }
  });

  it('gives a link limited to five downloads exactly five, whichever daemons serve the thirty asking at once', async () => {
    await makeUser(a, 'limiter');
    await upload(a, 'limiter', 'limited.txt', 'five only');
    const shared = await a.api('POST', '/api/files/share', { username: 'limiter', file: 'limited.txt', maxDownloads: '5' });
    expect(shared.status, shared.text).toBe(201);
    const path = new URL(shared.body.file.shareUrl as string).pathname;
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => call(i % 2 ? b : a, path)));
    expect(answers.filter((r) => r.status === 200).map((r) => r.text)).toEqual(Array(5).fill('five only'));
    expect(answers.filter((r) => r.status === 404)).toHaveLength(25);
    const listed = await b.api('GET', '/api/shares', { username: 'limiter' });
    expect(listed.body.shares[0]).toMatchObject({ downloads: 5, maxDownloads: 5, state: 'exhausted' });
  });
});
