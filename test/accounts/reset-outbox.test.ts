/**
 * Where a password-reset link goes when Nimbus has no SMTP (issue 29, item 8): `auth.options`
 * tells the sign-in page whether mail leaves by SMTP or is written to the outbox on the server,
 * so "Forgot password?" can say so instead of promising a mail. The answer names no path (the
 * row is public); the link itself is in `<data-dir>/outbox`, and the reset answer stays the
 * same whether or not the account exists.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { readOutbox, resetLink, startSmtp, type Smtp } from '../helpers/mail.js';
import { call, makeUser, show } from '../helpers/accounts.js';

describe('auth.options says how mail leaves', () => {
  let smtp: Smtp;
  let outbox: TestDaemon;
  let mailing: TestDaemon;
  beforeAll(async () => {
    smtp = await startSmtp();
    [outbox, mailing] = await Promise.all([startTestDaemon(), startTestDaemon({ env: { NIMBUS_SMTP_URL: smtp.url } })]);
  });
  afterAll(async () => {
    await Promise.all([outbox?.close(), mailing?.close()]);
    await smtp?.close();
  });

  it('answers mailDelivery outbox without NIMBUS_SMTP_URL, smtp with it, to anyone, and no path of the server', async () => {
    const without = await call(outbox, '/api/auth/options');
    expect(without.status, show(without)).toBe(200);
    expect(without.body.mailDelivery).toBe('outbox');
    expect(without.text).not.toContain(outbox.dataDir);
    expect(without.text).not.toContain('/');
    const withSmtp = await call(mailing, '/api/auth/options');
    expect(withSmtp.body.mailDelivery).toBe('smtp');
  });

  it('writes the reset link of an account to the outbox, answering as for an account that does not exist', async () => {
    await makeUser(outbox, 'oli');
    const known = await call(outbox, '/api/auth/reset', { body: { username: 'oli' } });
    const unknown = await call(outbox, '/api/auth/reset', { body: { username: 'nobody-here' } });
    expect(known.status, show(known)).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    await vi.waitFor(
      async () => expect((await readOutbox(outbox.dataDir)).some((mail) => mail.includes('oli@example.com') && resetLink(mail))).toBe(true),
      { timeout: 5000 },
    );
  });
});
