/**
 * No English left for a reader of another language (issue 29, item 4): the mails a person's own
 * request causes (registration, a resend, a forgotten password) are in that request's
 * Accept-Language, which the explorer sets to its own language; the daemon's pages (the address
 * confirmation, its used link, a page that is not there) follow the browser's. A mail nobody
 * asked for in a language (an admin's resend, a client that names none) stays English; the link
 * and the names are the same in every language.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UI_LANGUAGES } from '../../shared/languages.js';
import { SITE_WORDS } from '../../daemon/http/page-words-site.js';
import { mailWords } from '../../daemon/services/mail-words.js';
import { call, makeUser, show, signIn, passwordOf } from '../helpers/accounts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { readOutbox, resetLink, verifyLink } from '../helpers/mail.js';
import { readMail, type ReadMail } from '../helpers/mail-text.js';

const CZECH_BROWSER = { 'Accept-Language': 'cs-CZ,cs;q=0.9,en;q=0.8' };
const BROWSER_PAGE = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

/** The newest mail to `to` whose subject is one of `subjects`, once it is in the outbox. */
async function mailTo(t: TestDaemon, to: string, subjects: string[]): Promise<{ raw: string; mail: ReadMail }> {
  let found: { raw: string; mail: ReadMail } | undefined;
  await vi.waitFor(
    async () => {
      const mails = (await readOutbox(t.dataDir)).map((raw) => ({ raw, mail: readMail(raw) }));
      found = mails.filter(({ mail }) => mail.headers.get('to') === to && subjects.includes(mail.subject)).at(-1);
      expect(found, `a mail to ${to}`).toBeDefined();
    },
    { timeout: 5000 },
  );
  return found!;
}

const anySubject = (key: 'verifySubject' | 'resetSubject') => UI_LANGUAGES.map((lang) => mailWords(lang)[key]);

describe('mails and pages in the reader’s language', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } });
  });
  afterAll(() => t?.close());

  it('mails the verification of a registration made in Czech in Czech, and confirms it on a Czech page', async () => {
    const res = await call(t, '/api/auth/register', {
      headers: CZECH_BROWSER,
      body: { username: 'jana', email: 'jana@example.com', password: passwordOf('jana') },
    });
    expect(res.status, show(res)).toBe(201);
    const { raw, mail } = await mailTo(t, 'jana@example.com', anySubject('verifySubject'));
    expect(mail.subject).toBe('Potvrďte svou e-mailovou adresu pro Nimbus');
    expect(mail.headers.get('content-language')).toBe('cs');
    expect(mail.text).toContain('Dobrý den, jana,');
    expect(mail.text).toContain('Odkaz platí 24 hodin.');
    expect(mail.html).toContain('Potvrdit e-mailovou adresu');
    expect(mail.text + mail.html).not.toMatch(/Hello|Confirm your|valid for/);
    const link = verifyLink(raw)!;
    expect(link.origin).toBe(t.url);
    expect(mail.text).toContain(link.href);

    const target = `${link.pathname}${link.search}`;
    const page = await call(t, target, { headers: { ...CZECH_BROWSER, ...BROWSER_PAGE } });
    expect(page.status, show(page)).toBe(200);
    expect(page.text).toContain('<html lang="cs">');
    expect(page.text).toContain('E-mailová adresa potvrzena');
    expect(page.text).toContain('Děkujeme, jana.');
    const used = await call(t, target, { headers: { ...CZECH_BROWSER, ...BROWSER_PAGE } });
    expect(used.status).toBe(404);
    expect(used.headers['content-type']).toMatch(/^text\/html/);
    expect(used.text).toContain('Odkaz vypršel nebo už byl použit');
    expect(used.text).not.toContain('Link expired');
  });

  it('mails a password reset asked for in Czech in Czech, with the same link as ever', async () => {
    await makeUser(t, 'petr');
    const res = await call(t, '/api/auth/reset', { headers: CZECH_BROWSER, body: { username: 'petr' } });
    expect(res.status, show(res)).toBe(200);
    const { raw, mail } = await mailTo(t, 'petr@example.com', anySubject('resetSubject'));
    expect(mail.subject).toBe('Obnovení hesla k Nimbusu');
    expect(mail.text).toContain('Dobrý den, petr,');
    expect(mail.text).toContain('Odkaz platí 1 hodinu a funguje jen jednou.');
    expect(mail.html).toContain('Zvolit nové heslo');
    const link = resetLink(raw)!;
    expect(link.pathname).toBe('/reset');
    expect(mail.text).toContain(link.href);
    expect(mail.html).toContain(`href="${link.href}"`);
  });

  it('mails a reset asked for without a language (an API client) in English', async () => {
    await makeUser(t, 'olga');
    await call(t, '/api/auth/reset', { body: { username: 'olga' } });
    const { mail } = await mailTo(t, 'olga@example.com', anySubject('resetSubject'));
    expect(mail.subject).toBe('Reset your Nimbus password');
    expect(mail.text).toContain('Hello olga,');
    expect(mail.headers.get('content-language')).toBe('en');
  });

  it('resends a verification in the language of the user who asks for their own, in English when an admin asks', async () => {
    await makeUser(t, 'yuki');
    const cookie = await signIn(t, 'yuki', passwordOf('yuki'));
    const own = await call(t, '/api/user/verify', { cookie, headers: { 'Accept-Language': 'ja' }, body: { username: 'yuki' } });
    expect(own.status, show(own)).toBe(200);
    const mine = await mailTo(t, 'yuki@example.com', anySubject('verifySubject'));
    expect(mine.mail.subject).toBe('Nimbus のメールアドレスを確認してください');
    expect(mine.mail.text).toContain('yuki さん');

    await makeUser(t, 'ivo');
    const byAdmin = await call(t, '/api/user/verify', { key: t.key, headers: CZECH_BROWSER, body: { username: 'ivo' } });
    expect(byAdmin.status, show(byAdmin)).toBe(200);
    const theirs = await mailTo(t, 'ivo@example.com', anySubject('verifySubject'));
    expect(theirs.mail.subject).toBe('Confirm your e-mail address for Nimbus');
  });

  it('shows a browser the page for an address that is nothing in its language, English when it names none of the five', async () => {
    const norwegian = await call(t, '/nothing-here', { headers: { ...BROWSER_PAGE, 'Accept-Language': 'nn-NO,en;q=0.5' } });
    expect(norwegian.status).toBe(404);
    expect(norwegian.text).toContain('Fant ikke siden');
    const french = await call(t, '/nothing-here', { headers: { ...BROWSER_PAGE, 'Accept-Language': 'fr-FR' } });
    expect(french.text).toContain('Page not found');
    expect(french.text).toContain('<html lang="en">');
  });
});

describe('the words of the mails and the site’s pages', () => {
  const flat = (words: object) =>
    Object.entries(words).map(([key, value]) => [key, typeof value === 'function' ? (value as (x: string) => string)('x') : value]);

  it.each(UI_LANGUAGES.filter((lang) => lang !== 'en'))('%s has every word of English, each its own', (lang) => {
    for (const [english, other] of [
      [mailWords('en'), mailWords(lang)],
      [SITE_WORDS.en, SITE_WORDS[lang]],
    ]) {
      expect(Object.keys(other).sort()).toEqual(Object.keys(english).sort());
      const theirs = new Map(flat(other) as [string, string][]);
      for (const [key, value] of flat(english)) {
        expect(theirs.get(key as string), `${lang}.${key}`).toBeTruthy();
        expect(theirs.get(key as string), `${lang}.${key} is still English`).not.toBe(value);
      }
    }
  });
});
