/**
 * Share links with options (issue 27, docs/sharing.md): an expiry, a password and a download
 * limit, set when sharing and changed later. Black-box, over a real port: what the public
 * gets from the link, what the owner sees in the list, and the race for the last download.
 * Runs on db.json and on PostgreSQL + S3 (the cluster project).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_PAGE_CSP } from '../../daemon/http/pages.js';
import type { ShareInfo } from '../../shared/types.js';
import { api } from '../helpers/api.js';
import { createUser, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';

const BROWSER = 'text/html,application/xhtml+xml,*/*;q=0.8';
const CONTENT = 'the shared bytes\n';

describe('share link options', () => {
  let t: TestDaemon;
  let n = 0;

  beforeAll(async () => {
    t = await startTestDaemon();
    await createUser(t, 'ana');
  });
  afterAll(() => t.close());

  /** A new file of ana's, shared with `options`: its link's path and file name. */
  async function shared(options: Record<string, string | number> = {}): Promise<{ path: string; file: string; token: string }> {
    const file = `f${++n}.txt`;
    await upload(t, 'ana', file, CONTENT);
    const res = await api(t, 'files.share', { username: 'ana', file, ...options });
    expect(res.status, res.text).toBe(201);
    const path = new URL(res.body.file.shareUrl!).pathname;
    return { path, file, token: path.slice(3) };
  }
  const open = (path: string, headers: Record<string, string> = {}, method = 'GET') => t.raw(method, path, { key: null, headers });
  const infoOf = async (file: string): Promise<ShareInfo> =>
    (await api(t, 'shares.list', { username: 'ana' })).body.shares.find((s) => s.file === file)!;
  /** POSTs a link's password as the password page's form does. */
  const unlock = (path: string, password: string, from = {}) =>
    t.raw('POST', path, {
      key: null,
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: BROWSER, ...from },
      body: new URLSearchParams({ password }).toString(),
    });
  const cookieOf = (res: ApiResponse) => /^(nimbus_share=[^;]+)/.exec(res.headers.get('Set-Cookie') ?? '')![1];

  describe('expiry', () => {
    it('answers until the expiry, then as a revoked link (JSON and page), and the list says expired', async () => {
      const expires = new Date(Date.now() + 1500).toISOString();
      const link = await shared({ expires });
      expect((await open(link.path)).text).toBe(CONTENT);
      expect(await infoOf(link.file)).toMatchObject({ expiresAt: expires, state: 'active' });
      await new Promise((r) => setTimeout(r, Date.parse(expires) - Date.now() + 50));
      const json = await open(link.path);
      expect(json.status).toBe(404);
      expect(json.body.code).toBe('share_not_found');
      const page = await open(link.path, { Accept: BROWSER });
      expect(page.status).toBe(404);
      expect(page.text).toContain('Link not found');
      expect((await infoOf(link.file)).state).toBe('expired');
    });

    it('refuses an expiry already past, or one that is no date, and changes nothing', async () => {
      const link = await shared();
      for (const expires of ['2001-01-01T00:00:00Z', 'tomorrow', '2026-13-45', '2030-01-01T10:00']) {
        const res = await t.raw('POST', `/api/shares/edit?username=ana&file=${link.file}&expires=${encodeURIComponent(expires)}`);
        expect(res.status, expires).toBe(400);
      }
      expect((await infoOf(link.file)).expiresAt).toBeNull();
    });

    it('an edit gives an expired link more time, and `never` takes the expiry away', async () => {
      const link = await shared({ expires: new Date(Date.now() + 300).toISOString() });
      await new Promise((r) => setTimeout(r, 400));
      expect((await open(link.path)).status).toBe(404);
      const edited = await api(t, 'shares.edit', { username: 'ana', file: link.file, expires: '2999-12-31' });
      expect(edited.body.share).toMatchObject({ state: 'active', expiresAt: '2999-12-31T00:00:00.000Z' });
      expect((await open(link.path)).text).toBe(CONTENT);
      const never = await t.raw('POST', `/api/shares/edit?username=ana&file=${link.file}&expires=never`);
      expect(never.body.share.expiresAt).toBeNull();
    });
  });

  describe('download limit', () => {
    it('serves as many downloads as allowed, then answers as a revoked link; seeks, HEADs and preview pages take none', async () => {
      const link = await shared({ maxDownloads: 2 });
      expect((await open(link.path, {}, 'HEAD')).status).toBe(200);
      expect((await open(link.path, { Range: 'bytes=4-9' })).status).toBe(206);
      expect((await open(link.path)).text).toBe(CONTENT);
      expect(await infoOf(link.file)).toMatchObject({ downloads: 1, maxDownloads: 2, state: 'active' });
      // A player's first request asks for the bytes from the start: that one counts.
      expect((await open(link.path, { Range: 'bytes=0-' })).status).toBe(206);
      const third = await open(link.path);
      expect(third.status).toBe(404);
      expect(third.body.code).toBe('share_not_found');
      expect(await infoOf(link.file)).toMatchObject({ downloads: 2, state: 'exhausted' });
    });

    it('gives the last downloads to exactly as many of twenty clients at once as the limit allows', async () => {
      const link = await shared({ maxDownloads: 3 });
      const answers = await Promise.all(Array.from({ length: 20 }, () => open(link.path)));
      const served = answers.filter((r) => r.status === 200);
      expect(served).toHaveLength(3);
      for (const r of served) expect(r.text).toBe(CONTENT);
      expect(answers.filter((r) => r.status === 404)).toHaveLength(17);
      expect((await infoOf(link.file)).downloads).toBe(3);
    });

    it('keeps the count across a restart, and an edit that raises the limit opens the link again', async () => {
      const link = await shared({ maxDownloads: 1 });
      expect((await open(link.path)).status).toBe(200);
      await t.stop();
      await t.restart();
      expect((await open(link.path)).status).toBe(404);
      const edited = await api(t, 'shares.edit', { username: 'ana', file: link.file, maxDownloads: 2 });
      expect(edited.body.share).toMatchObject({ downloads: 1, maxDownloads: 2, state: 'active' });
      expect((await open(link.path)).status).toBe(200);
      const unlimited = await api(t, 'shares.edit', { username: 'ana', file: link.file, maxDownloads: 0 });
      expect(unlimited.body.share).toMatchObject({ downloads: 2, maxDownloads: null, state: 'active' });
      expect((await open(link.path)).status).toBe(200);
    });
  });

  describe('password', () => {
    it('shows a browser the password page, naming nothing of the file, and an API client a 401', async () => {
      const link = await shared({ password: 'open sesame' });
      const page = await open(link.path, { Accept: BROWSER });
      expect(page.status).toBe(401);
      expect(page.headers.get('Content-Type')).toMatch(/^text\/html/);
      expect(page.headers.get('Content-Security-Policy')).toBe(PASSWORD_PAGE_CSP);
      expect(page.headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(page.text).toContain(`<form method="post" action="${link.path}">`);
      expect(page.text).not.toContain(link.file);
      expect(page.text).not.toContain('ana');
      const json = await open(link.path);
      expect(json.status).toBe(401);
      expect(json.body.code).toBe('share_password_required');
      expect(json.text).not.toContain(CONTENT.trim());
    });

    it('opens with the right password for this browser and this link only', async () => {
      const link = await shared({ password: 'open sesame' });
      const other = await shared({ password: 'open sesame' });
      const res = await unlock(link.path, 'open sesame');
      expect(res.status).toBe(303);
      expect(res.headers.get('Location')).toBe(link.path);
      const cookie = cookieOf(res);
      expect((await open(link.path, { Cookie: cookie })).text).toBe(CONTENT);
      expect((await open(other.path, { Cookie: cookie })).status).toBe(401);
      // A cookie made up, or one for an instant past its lifetime, opens nothing.
      expect((await open(link.path, { Cookie: `nimbus_share=${Date.now() + 1000}.forged` })).status).toBe(401);
    });

    it('answers a wrong password and an unknown link alike: 401 and the page again', async () => {
      const link = await shared({ password: 'open sesame' });
      const wrong = await unlock(link.path, 'not it');
      const unknown = await unlock(`/s/${'B'.repeat(43)}`, 'not it');
      const noPassword = await unlock((await shared()).path, 'anything');
      for (const res of [wrong, unknown, noPassword]) {
        expect(res.status).toBe(401);
        expect(res.headers.get('Set-Cookie')).toBeNull();
        expect(res.text).toContain('That password is not right.');
      }
      expect(unknown.text.replace(/\/s\/[A-Za-z0-9_-]+/g, '')).toBe(wrong.text.replace(/\/s\/[A-Za-z0-9_-]+/g, ''));
    });

    it('takes the page’s own form (Origin: null, Sec-Fetch-Site: same-origin) and refuses an opaque origin from elsewhere', async () => {
      const link = await shared({ password: 'open sesame' });
      const own = await unlock(link.path, 'open sesame', { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' });
      expect(own.status).toBe(303);
      for (const site of ['cross-site', 'same-site', 'none']) {
        const foreign = await unlock(link.path, 'open sesame', { Origin: 'null', 'Sec-Fetch-Site': site });
        expect(foreign.status, site).toBe(403);
        expect(foreign.text).toContain('cross_site_request');
      }
      expect((await unlock(link.path, 'open sesame', { Origin: 'https://evil.example' })).status).toBe(403);
    });

    it('refuses guesses past five for a link (429), even the right password, while other links open', async () => {
      const link = await shared({ password: 'open sesame' });
      for (let i = 0; i < 5; i++) expect((await unlock(link.path, `guess ${i}`)).status).toBe(401);
      const blocked = await unlock(link.path, 'open sesame');
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('Retry-After'))).toBeGreaterThan(0);
      const other = await shared({ password: 'other words' });
      expect((await unlock(other.path, 'other words')).status).toBe(303);
    });

    it('opens for everyone who sends the right password at once (one attempt, a cookie each)', async () => {
      const link = await shared({ password: 'open sesame' });
      const answers = await Promise.all(Array.from({ length: 8 }, () => unlock(link.path, 'open sesame')));
      expect(answers.map((res) => res.status)).toEqual(answers.map(() => 303));
      for (const res of answers) expect((await open(link.path, { Cookie: cookieOf(res) })).text).toBe(CONTENT);
    });

    it('voids every unlocked browser when the password changes or is removed (then the link opens for all)', async () => {
      const link = await shared({ password: 'first words' });
      const cookie = cookieOf(await unlock(link.path, 'first words'));
      await api(t, 'shares.edit', { username: 'ana', file: link.file, password: 'second words' });
      expect((await open(link.path, { Cookie: cookie })).status).toBe(401);
      expect((await unlock(link.path, 'first words')).status).toBe(401);
      expect((await unlock(link.path, 'second words')).status).toBe(303);
      const removed = await api(t, 'shares.edit', { username: 'ana', file: link.file, removePassword: true });
      expect(removed.body.share.hasPassword).toBe(false);
      expect((await open(link.path)).text).toBe(CONTENT);
    });

    it('takes the password in the body only, and not both a password and its removal', async () => {
      const link = await shared();
      const inQuery = await t.raw('POST', `/api/shares/edit?username=ana&file=${link.file}&password=secret`);
      expect(inQuery.status).toBe(400);
      expect(inQuery.body.code).toBe('password_in_query');
      const both = await api(t, 'shares.edit', { username: 'ana', file: link.file, password: 'x', removePassword: true });
      expect(both.status).toBe(400);
      // A file has no upload link: naming both is a contradiction, not a lookup of the file.
      expect((await api(t, 'shares.edit', { username: 'ana', file: link.file, upload: true, maxDownloads: 3 })).status).toBe(400);
      expect((await infoOf(link.file)).hasPassword).toBe(false);
    });
  });

  it('keeps a link’s options when its file is renamed, and the list shows them, never a hash', async () => {
    const link = await shared({ password: 'open sesame', maxDownloads: 5, expires: '2999-01-01' });
    await api(t, 'files.rename', { username: 'ana', file: link.file, newname: `renamed-${link.file}` });
    const info = await infoOf(`renamed-${link.file}`);
    expect(info).toMatchObject({ hasPassword: true, maxDownloads: 5, expiresAt: '2999-01-01T00:00:00.000Z', state: 'active' });
    expect(new URL(info.url).pathname).toBe(link.path);
    const list = await api(t, 'shares.list', { username: 'ana' });
    expect(list.text).not.toMatch(/scrypt|sesame|passwordHash/);
  });
});
