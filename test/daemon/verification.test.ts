/**
 * E-mail verification: the outbox without SMTP, a real SMTP server with it, a link that
 * works once, survives a restart and dies after 24 hours or an address change.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { embeddedRun } from '../helpers/backend.js';
import { createUser, editDb, readDb, readDbText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { readOutbox, startSmtp, verifyLink, type Smtp } from '../helpers/mail.js';
import { expectErrorBody } from '../helpers/records.js';

const isVerified = async (t: TestDaemon, username: string) => (await t.api('GET', '/api/user', { username })).body.emailVerified as boolean;
const open = (t: TestDaemon, link: URL) => t.raw('GET', `${link.pathname}${link.search}`, { key: null });

/** The newest outbox mail addressed to the user. */
async function outboxLink(t: TestDaemon, username: string): Promise<URL> {
  const mails = (await readOutbox(t.dataDir)).filter((m) => m.includes(`Hello ${username},`));
  expect(mails.length).toBeGreaterThan(0);
  return verifyLink(mails[mails.length - 1])!;
}

describe('verification through the outbox', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    // Cluster daemons share NIMBUS_API_KEY (docs/cluster.md): no key of their own to keep.
    t = await startTestDaemon(embeddedRun ? { apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } } : {});
  });
  afterAll(() => t.close());

  it('writes an .eml with the /verify link and says delivery "outbox"', async () => {
    await createUser(t, 'ana', 'ana@example.com');
    const res = await t.api('POST', '/api/user/verify', { username: 'ana' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: expect.any(String), delivery: 'outbox' });
    const [mail] = await readOutbox(t.dataDir);
    expect(mail).toMatch(/^To: ana@example\.com$/m);
    const link = verifyLink(mail)!;
    expect(link.origin).toBe(t.url);
    expect(link.pathname).toBe('/verify');
    expect(link.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('marks the address verified once; the second open is a 404', async () => {
    const link = await outboxLink(t, 'ana');
    expect(await isVerified(t, 'ana')).toBe(false);
    const first = await open(t, link);
    expect(first.status).toBe(200);
    expect(first.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(first.text).toContain('verified');
    expect(first.headers.get('Content-Security-Policy')).toMatch(/default-src 'none'/);
    expect(await isVerified(t, 'ana')).toBe(true);
    const second = await open(t, link);
    expect(second.status).toBe(404);
    expect(second.headers.get('Content-Type')).toMatch(/^text\/html/);
  });

  it('does not use up the link on a HEAD request (link checkers, mail scanners)', async () => {
    await createUser(t, 'hal');
    await t.api('POST', '/api/user/verify', { username: 'hal' });
    const link = await outboxLink(t, 'hal');
    const head = await t.raw('HEAD', `${link.pathname}${link.search}`, { key: null });
    expect(head.status).toBe(200);
    expect(await isVerified(t, 'hal')).toBe(false);
    expect((await open(t, link)).status).toBe(200);
    expect(await isVerified(t, 'hal')).toBe(true);
    expect((await t.raw('HEAD', `${link.pathname}${link.search}`, { key: null })).status).toBe(404);
  });

  it('keeps a token across a daemon restart', async () => {
    await createUser(t, 'bob');
    await t.api('POST', '/api/user/verify', { username: 'bob' });
    const link = await outboxLink(t, 'bob');
    await t.stop();
    await t.restart();
    expect((await open(t, link)).status).toBe(200);
    expect(await isVerified(t, 'bob')).toBe(true);
  });

  it('replaces an earlier token with a new one', async () => {
    await createUser(t, 'cat');
    await t.api('POST', '/api/user/verify', { username: 'cat' });
    const first = await outboxLink(t, 'cat');
    await vi.waitFor(async () => {
      await t.api('POST', '/api/user/verify', { username: 'cat' });
      expect((await outboxLink(t, 'cat')).href).not.toBe(first.href);
    });
    const second = await outboxLink(t, 'cat');
    expect((await open(t, first)).status).toBe(404);
    expect((await open(t, second)).status).toBe(200);
  });

  it('refuses a token after the e-mail address changed', async () => {
    await createUser(t, 'dan');
    await t.api('POST', '/api/user/verify', { username: 'dan' });
    const link = await outboxLink(t, 'dan');
    await t.api('POST', '/api/user/edit', {
      username: 'dan',
      newusername: 'dan',
      newemail: 'dan@elsewhere.example',
      newpassword: 'password123',
    });
    expect((await open(t, link)).status).toBe(404);
    expect(await isVerified(t, 'dan')).toBe(false);
  });

  it('follows a rename of the user (same address)', async () => {
    await createUser(t, 'eve');
    await t.api('POST', '/api/user/verify', { username: 'eve' });
    const link = await outboxLink(t, 'eve');
    await t.api('POST', '/api/user/edit', { username: 'eve', newusername: 'eva', newemail: 'eve@example.com', newpassword: 'password123' });
    expect((await open(t, link)).status).toBe(200);
    expect(await isVerified(t, 'eva')).toBe(true);
  });

  it('refuses a token older than 24 hours (expiry kept in the store)', async () => {
    await createUser(t, 'old');
    await t.api('POST', '/api/user/verify', { username: 'old' });
    const link = await outboxLink(t, 'old');
    const db = await readDb(t);
    const entry = db.verifications.find((v: { username: string }) => v.username === 'old');
    expect(Date.parse(entry.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(Date.parse(entry.expiresAt) - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    await t.stop();
    await editDb(t, (stored) => {
      stored.verifications.find((v: { username: string }) => v.username === 'old').expiresAt = new Date(Date.now() - 1000).toISOString();
    });
    await t.restart();
    expect((await open(t, link)).status).toBe(404);
    expect(await isVerified(t, 'old')).toBe(false);
  });

  it('stores only the token’s hash', async () => {
    const link = await outboxLink(t, 'old');
    const text = await readDbText(t);
    expect(text).not.toContain(link.searchParams.get('token'));
  });
});

describe('verification through SMTP', () => {
  let smtp: Smtp;
  let t: TestDaemon;

  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestDaemon({
      env: { NIMBUS_SMTP_URL: smtp.url, NIMBUS_MAIL_FROM: 'Nimbus Test <nimbus@test.example>' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp.close();
  });

  it('sends the mail with the link to the SMTP server and says delivery "smtp"', async () => {
    await createUser(t, 'sam', 'sam@example.com');
    const res = await t.api('POST', '/api/user/verify', { username: 'sam' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.delivery).toBe('smtp');
    await vi.waitFor(() => expect(smtp.received).toHaveLength(1));
    const [mail] = smtp.received;
    expect(mail.from).toBe('nimbus@test.example');
    expect(mail.to).toEqual(['sam@example.com']);
    expect(mail.raw).toMatch(/^From: Nimbus Test <nimbus@test\.example>$/m);
    const link = verifyLink(mail.raw)!;
    expect(link.origin).toBe(t.url);
    expect(await readOutbox(t.dataDir)).toEqual([]);
    expect((await open(t, link)).status).toBe(200);
    expect(await isVerified(t, 'sam')).toBe(true);
    expect((await t.api('GET', '/api/dash')).body.mail).toEqual({ delivery: 'smtp' });
  });

  it('answers 502 mail_failed without a stack when the SMTP server is gone', async () => {
    await smtp.close();
    await createUser(t, 'tom');
    const res = await t.api('POST', '/api/user/verify', { username: 'tom' });
    expectErrorBody(res, 502, 'mail_failed');
    expect(res.text).not.toMatch(/\n\s+at /);
  });
});
