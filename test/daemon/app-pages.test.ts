/**
 * The explorer's addresses are deep links (issue 25): the daemon answers every page of the UI
 * (/files/<user>/<path>, /trash, /search, /settings, ...) with the built index.html, so a reload
 * or a bookmark opens the app there, while the API, the share links and the mail pages keep
 * their own answers and a path that is no page of the UI is a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

describe('the UI pages the daemon serves', () => {
  let t: TestDaemon;
  let indexHtml: string;
  beforeAll(async () => {
    await ensureRendererBuilt();
    t = await startTestDaemon();
    indexHtml = (await t.raw('GET', '/', { key: null })).text;
  }, 180_000);
  afterAll(() => t?.close());

  it.each([
    '/',
    '/files/ana',
    '/files/ana/',
    '/files/ana/Docs',
    // A folder whose name looks like a file is still a page, not a missing asset.
    '/files/ana/release%20v1.2',
    '/files/ana/a%23b%20c%3Fd%25e',
    '/files/ana/photos/2024/june',
    '/trash',
    '/trash/ana',
    '/search?q=x',
    '/search?q=x&user=ana&folder=Docs',
    '/settings',
    '/shared',
    '/roles',
    '/reset?token=abc',
  ])('answers %s with the UI', async (page) => {
    const res = await t.raw('GET', page, { key: null });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toMatch(/script-src/);
    expect(res.text).toBe(indexHtml);
  });

  it.each(['/', '/files/ana/photos', '/nimbus.svg'])('answers HEAD %s as GET does, without the body', async (page) => {
    const get = await t.raw('GET', page, { key: null });
    const head = await t.raw('HEAD', page, { key: null });
    expect(head.status).toBe(get.status);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(head.text).toBe('');
  });

  it.each([
    '/nothing',
    '/files',
    '/filesx/ana',
    '/trash/ana/more',
    '/settings/more',
    '/files/ana//Docs',
    '/files/ana/%E0%A4%A',
    '/nothing.js',
  ])('answers %s, no page of the UI, with a 404', async (page) => {
    expectErrorBody(await t.raw('GET', page, { key: null }), 404, 'route_not_found');
  });

  it('leaves the API, share links and mail pages their own answers', async () => {
    expectErrorBody(await t.raw('GET', '/api/files', { key: null }), 401);
    expect((await t.raw('GET', '/api/files?username=nobody')).status).toBe(404);
    expectErrorBody(await t.raw('GET', '/s/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { key: null, headers: { Accept: 'application/json' } }), 404);
    const verify = await t.raw('GET', '/verify?token=nope', { key: null });
    expect(verify.status).toBeGreaterThanOrEqual(400);
    expect(verify.text).not.toBe(indexHtml);
  });
});
