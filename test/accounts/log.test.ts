/**
 * The daemon's log (<data-dir>/logs/nimbus.log) never holds a password, a session cookie or
 * a reset token (docs/accounts.md; the request log's redaction), even at the most verbose
 * level and even when a client puts a password where it must not (the query string).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { call, login, makeUser, passwordOf, show, signIn } from '../helpers/accounts.js';
import { resetLink, startSmtp, type Smtp } from '../helpers/mail.js';

let smtp: Smtp;
let t: TestDaemon;
beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestDaemon({ logLevel: 'trace', env: { NIMBUS_SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

async function logText(): Promise<string> {
  const dir = path.join(t.dataDir, 'logs');
  const names = await readdir(dir);
  const texts = await Promise.all(names.map((n) => readFile(path.join(dir, n), 'utf8')));
  return texts.join('\n') + t.logs.join('\n');
}

it('holds no password, cookie value or reset token after a sign-in, a password change, a reset and a logout', async () => {
  const secrets: string[] = [];
  await makeUser(t, 'lia');
  secrets.push(passwordOf('lia'));
  const cookie = await signIn(t, 'lia', passwordOf('lia'));
  secrets.push(cookie);
  const second = await signIn(t, 'lia', passwordOf('lia'), { form: true });
  secrets.push(second);
  const wrong = 'Wrong-guess-pw-3141';
  secrets.push(wrong);
  expect((await login(t, 'lia', wrong)).res.status).toBe(401);
  const changed = 'Changed-pw-27182';
  secrets.push(changed);
  const res = await call(t, '/api/auth/password', { cookie, body: { password: passwordOf('lia'), newpassword: changed } });
  expect(res.status, show(res)).toBe(200);
  // A password where it must not be: refused, and not logged either (the URL is in the request log).
  const inQuery = 'In-query-pw-16180';
  secrets.push(inQuery);
  expect((await call(t, '/api/auth/login', { method: 'POST', query: { username: 'lia', password: inQuery } })).status).toBe(400);
  // The admin API's DaneeCloud rows still take passwords in the query: the request log must redact them.
  const adminQuery = 'Admin-query-pw-2718';
  secrets.push(adminQuery);
  expect(
    (
      await call(t, '/api/user/create', {
        key: t.key,
        method: 'POST',
        query: { username: 'qlog', email: 'q@example.com', password: adminQuery },
      })
    ).status,
  ).toBe(201);
  const adminEdit = 'Admin-edit-pw-1618';
  secrets.push(adminEdit);
  expect(
    (
      await call(t, '/api/user/edit', {
        key: t.key,
        method: 'POST',
        query: { username: 'qlog', newusername: 'qlog', newemail: 'q@example.com', newpassword: adminEdit },
      })
    ).status,
  ).toBe(201);
  const weak = 'password';
  expect((await call(t, '/api/auth/password', { cookie, body: { password: changed, newpassword: weak } })).status).toBe(400);
  expect((await call(t, '/api/auth/reset', { body: { username: 'lia' } })).status).toBe(200);
  await vi.waitFor(() => expect(smtp.received.length).toBeGreaterThan(0), { timeout: 3000 });
  const token = resetLink(smtp.received.at(-1)!.raw)!.searchParams.get('token')!;
  secrets.push(token);
  const reset = 'After-reset-pw-14142';
  secrets.push(reset);
  expect((await call(t, '/api/auth/reset/confirm', { body: { token, newpassword: reset } })).status).toBe(200);
  const third = await signIn(t, 'lia', reset);
  secrets.push(third);
  expect((await call(t, '/api/auth/logout', { cookie: third, method: 'POST' })).status).toBe(200);
  // A replayed dead cookie and a made-up one are refused; neither is written down.
  expect((await call(t, '/api/auth/me', { cookie: third })).status).toBe(401);
  await t.stop();
  const log = await logText();
  expect(log.length, 'the log has lines').toBeGreaterThan(0);
  expect(log).toMatch(/auth\/login/);
  for (const secret of secrets) expect(log.includes(secret), `the log contains ${secret.slice(0, 6)}…`).toBe(false);
  // Nor the cookie header or its hash-free prefix form.
  expect(log).not.toMatch(/nimbus_session=[A-Za-z0-9_-]{8,}/);
});
