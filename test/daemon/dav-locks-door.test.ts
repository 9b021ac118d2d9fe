/** Issue 26: LOCK, UNLOCK, the If header and PROPPATCH through /dav/, and the API honouring a lock taken there. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeUser, passwordOf, show } from '../helpers/accounts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { dav } from '../helpers/dav.js';

let t: TestDaemon;
const auth: [string, string] = ['max', passwordOf('max')];
const as = (extra: Parameters<typeof dav>[3] = {}) => ({ auth, ...extra });
const LOCKINFO =
  '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>' +
  '<D:locktype><D:write/></D:locktype><D:owner><D:href>mailto:max@example.com</D:href></D:owner></D:lockinfo>';

beforeAll(async () => {
  t = await startTestDaemon();
  await makeUser(t, 'max');
});
afterAll(() => t.close());

async function lockFile(path: string, timeout = 'Second-600') {
  const res = await dav(t, 'LOCK', `/dav/max/${path}`, as({ body: LOCKINFO, headers: { Timeout: timeout, Depth: '0' } }));
  expect([200, 201], show(res)).toContain(res.status);
  const token = /^<(.+)>$/.exec(res.headers['lock-token'] as string)![1];
  return { res, token };
}

describe('a lock taken through /dav/', () => {
  it('makes the API’s upload, rename and delete of the file 423 until UNLOCK', async () => {
    expect((await dav(t, 'PUT', '/dav/max/held.txt', as({ body: 'kept' }))).status).toBe(201);
    const { res, token } = await lockFile('held.txt');
    expect(res.status).toBe(200);
    expect(token).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
    expect(res.text).toContain('<D:lockdiscovery><D:activelock>');
    expect(res.text).toMatch(/<D:owner><D:href[^>]*>mailto:max@example.com<\/D:href><\/D:owner>/);
    const writes = () => [
      t.api('POST', '/api/files/upload', { username: 'max', file: 'held.txt', overwrite: 'true' }, { body: 'changed' }),
      t.api('POST', '/api/files/rename', { username: 'max', file: 'held.txt', newname: 'moved.txt' }),
      t.api('POST', '/api/files/delete', { username: 'max', file: 'held.txt' }),
    ];
    for (const res of await Promise.all(writes())) expect(res.status, res.text).toBe(423);
    expect((await dav(t, 'GET', '/dav/max/held.txt', as())).text).toBe('kept');
    // Through /dav/ too, without the token: 423 naming the lock.
    const put = await dav(t, 'PUT', '/dav/max/held.txt', as({ body: 'x' }));
    expect(put.status).toBe(423);
    expect(put.text).toContain('<D:lock-token-submitted><D:href>/dav/max/held.txt</D:href></D:lock-token-submitted>');
    // With it, the holder writes.
    const owner = await dav(t, 'PUT', '/dav/max/held.txt', as({ body: 'by the holder', headers: { If: `(<${token}>)` } }));
    expect(owner.status, show(owner)).toBe(204);
    const unlock = await dav(t, 'UNLOCK', '/dav/max/held.txt', as({ headers: { 'Lock-Token': `<${token}>` } }));
    expect(unlock.status, show(unlock)).toBe(204);
    const rename = await t.api('POST', '/api/files/rename', { username: 'max', file: 'held.txt', newname: 'moved.txt' });
    expect(rename.status, rename.text).toBe(201);
  });

  it('lets the API write again once the lock expired', async () => {
    expect((await dav(t, 'PUT', '/dav/max/brief.txt', as({ body: 'x' }))).status).toBe(201);
    await lockFile('brief.txt', 'Second-1');
    expect((await t.api('POST', '/api/files/delete', { username: 'max', file: 'brief.txt' })).status).toBe(423);
    await vi.waitFor(
      async () => expect((await t.api('POST', '/api/files/delete', { username: 'max', file: 'brief.txt' })).status).toBe(200),
      { timeout: 10_000, interval: 200 },
    );
  });

  it('makes an empty file of an unmapped URL (201), refreshes with an If header, and lists the lock in lockdiscovery', async () => {
    const { res, token } = await lockFile('new-doc.txt');
    expect(res.status).toBe(201);
    expect((await dav(t, 'GET', '/dav/max/new-doc.txt', as())).text).toBe('');
    const refresh = await dav(t, 'LOCK', '/dav/max/new-doc.txt', as({ headers: { If: `(<${token}>)`, Timeout: 'Second-120' } }));
    expect(refresh.status, show(refresh)).toBe(200);
    expect(refresh.text).toMatch(/<D:timeout>Second-1[12]\d<\/D:timeout>/);
    const found = await dav(t, 'PROPFIND', '/dav/max/new-doc.txt', as({ headers: { Depth: '0' } }));
    expect(found.text).toContain(`<D:locktoken><D:href>${token}</D:href></D:locktoken>`);
    const wrong = await dav(
      t,
      'UNLOCK',
      '/dav/max/new-doc.txt',
      as({ headers: { 'Lock-Token': '<urn:uuid:00000000-0000-4000-8000-000000000000>' } }),
    );
    expect(wrong.status).toBe(409);
  });

  it('shows a new lock and a new dead property in a folder listed before (Depth 1)', async () => {
    expect((await dav(t, 'MKCOL', '/dav/max/listed', as())).status).toBe(201);
    expect((await dav(t, 'PUT', '/dav/max/listed/a.txt', as({ body: 'a' }))).status).toBe(201);
    const entryOf = async () => {
      const res = await dav(t, 'PROPFIND', '/dav/max/listed/', as({ headers: { Depth: '1' } }));
      return res.text.split('<D:response>').find((r) => r.includes('/dav/max/listed/a.txt<'))!;
    };
    // Listed until the file's identity has settled (a second), so the listing may keep its entry.
    await vi.waitFor(async () => expect(await entryOf()).not.toContain('W/'), { timeout: 10_000, interval: 200 });
    expect(await entryOf()).toContain('<D:lockdiscovery></D:lockdiscovery>');
    const { token } = await lockFile('listed/a.txt');
    expect(await entryOf()).toContain(`<D:locktoken><D:href>${token}</D:href></D:locktoken>`);
    const set =
      '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example:z"><D:set><D:prop><Z:tag>new</Z:tag></D:prop></D:set></D:propertyupdate>';
    expect((await dav(t, 'PROPPATCH', '/dav/max/listed/a.txt', as({ body: set, headers: { If: `(<${token}>)` } }))).status).toBe(207);
    expect((await dav(t, 'UNLOCK', '/dav/max/listed/a.txt', as({ headers: { 'Lock-Token': `<${token}>` } }))).status).toBe(204);
    const entry = await entryOf();
    expect(entry).toContain('<D:lockdiscovery></D:lockdiscovery>');
    expect(entry).toContain('>new</Z:tag>');
  });

  it('answers a false If header with 412 and changes nothing', async () => {
    expect((await dav(t, 'PUT', '/dav/max/cond.txt', as({ body: 'one' }))).status).toBe(201);
    const res = await dav(t, 'PUT', '/dav/max/cond.txt', as({ body: 'two', headers: { If: '(["not-the-etag"])' } }));
    expect(res.status).toBe(412);
    expect((await dav(t, 'GET', '/dav/max/cond.txt', as())).text).toBe('one');
  });
});

describe('PROPPATCH', () => {
  it('keeps dead properties, refuses DAV: ones (403, the rest 424) and changes nothing then', async () => {
    expect((await dav(t, 'PUT', '/dav/max/props.txt', as({ body: 'p' }))).status).toBe(201);
    const set =
      '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example:z"><D:set><D:prop><Z:colour>blue &amp; green</Z:colour></D:prop></D:set></D:propertyupdate>';
    const ok = await dav(t, 'PROPPATCH', '/dav/max/props.txt', as({ body: set }));
    expect(ok.status, show(ok)).toBe(207);
    expect(ok.text).toContain('HTTP/1.1 200 OK');
    const mixed =
      '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example:z"><D:set><D:prop><Z:size>big</Z:size><D:getcontentlength>9</D:getcontentlength></D:prop></D:set></D:propertyupdate>';
    const refused = await dav(t, 'PROPPATCH', '/dav/max/props.txt', as({ body: mixed }));
    expect(refused.status).toBe(207);
    expect(refused.text).toContain('HTTP/1.1 403 Forbidden');
    expect(refused.text).toContain('<D:cannot-modify-protected-property/>');
    expect(refused.text).toContain('HTTP/1.1 424 Failed Dependency');
    const found = await dav(t, 'PROPFIND', '/dav/max/props.txt', as({ headers: { Depth: '0' } }));
    expect(found.text).toContain('blue &amp; green</Z:colour>');
    expect(found.text).not.toContain('size');
  });
});
