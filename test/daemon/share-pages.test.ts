/**
 * A dead share link opened in a browser gets a small page, not raw JSON (issue 10, item
 * 16); API clients keep the JSON error and a live link keeps downloading.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../../daemon/http/pages.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const DEAD = '/s/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

describe('GET /s/<token>', () => {
  let t: TestDaemon;
  let liveLink: string;
  beforeAll(async () => {
    t = await startTestDaemon();
    await createUser(t, 'ana');
    await upload(t, 'ana', 'notes.txt', 'hello\n');
    liveLink = (await t.api('POST', '/api/files/share', { username: 'ana', file: 'notes.txt' })).body.file.shareUrl;
  });
  afterAll(() => t.close());

  it('shows a browser a small 404 page for an unknown link', async () => {
    const res = await t.raw('GET', DEAD, { key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(res.text).toContain('<title>Link not found — Nimbus</title>');
    expect(res.text).toMatch(/no longer shared|does not exist/);
    expect(res.text).not.toContain('"code"');
  });

  it('shows the page for a link that was revoked', async () => {
    await upload(t, 'ana', 'gone.txt', 'bye\n');
    const url = new URL((await t.api('POST', '/api/files/share', { username: 'ana', file: 'gone.txt' })).body.file.shareUrl);
    await t.api('POST', '/api/files/noshare', { username: 'ana', file: 'gone.txt' });
    const res = await t.raw('GET', url.pathname, { key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(404);
    expect(res.text).toContain('Link not found');
  });

  it('keeps the JSON error for API clients', async () => {
    for (const accept of ['application/json', '*/*']) {
      const res = await t.raw('GET', DEAD, { key: null, headers: { Accept: accept } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: expect.any(String), code: 'share_not_found' });
    }
    const bare = await t.raw('GET', DEAD, { key: null });
    expect(bare.body.code).toBe('share_not_found');
  });

  it('still downloads a live link, even for a browser (its page’s download button)', async () => {
    const res = await t.raw('GET', `${new URL(liveLink).pathname}?download=true`, { key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('hello\n');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
  });

  it('speaks the browser’s language on its pages: Czech, Japanese, Norwegian (no), English for the rest', async () => {
    const dead = (lang: string) => t.raw('GET', DEAD, { key: null, headers: { Accept: BROWSER_ACCEPT, 'Accept-Language': lang } });
    const cs = await dead('cs-CZ,cs;q=0.9,en;q=0.8');
    expect(cs.text).toContain('<html lang="cs">');
    expect(cs.text).toContain('Odkaz nenalezen');
    expect((await dead('ja')).text).toContain('リンクが見つかりません');
    expect((await dead('no-NO')).text).toContain('Fant ikke lenken');
    expect((await dead('fr-FR,de;q=0.9')).text).toContain('Link not found');
    expect((await dead('fr, es;q=0.5')).text).toContain('Enlace no encontrado');
  });
});
