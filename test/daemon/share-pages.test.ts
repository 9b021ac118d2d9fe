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

  it('still downloads a live link, even for a browser', async () => {
    const res = await t.raw('GET', new URL(liveLink).pathname, { key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('hello\n');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
  });
});
