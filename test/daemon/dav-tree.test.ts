/** Issue 26: WebDAV's methods on a user's tree, through the same services as the API (docs/webdav.md). */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeUser, passwordOf, show } from '../helpers/accounts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { dav, hrefs, propfindBody } from '../helpers/dav.js';
import { openEventStream } from '../helpers/events.js';

let t: TestDaemon;
const auth: [string, string] = ['kim', passwordOf('kim')];
const as = (extra: Parameters<typeof dav>[3] = {}) => ({ auth, ...extra });

beforeAll(async () => {
  t = await startTestDaemon();
  await makeUser(t, 'kim');
});
afterAll(() => t.close());

async function put(path: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await dav(t, 'PUT', `/dav/kim/${path}`, as({ body, headers }));
  expect([201, 204], `PUT ${path}: ${show(res)}`).toContain(res.status);
  return res;
}
async function mkcol(path: string) {
  const res = await dav(t, 'MKCOL', `/dav/kim/${path}`, as());
  expect(res.status, `MKCOL ${path}: ${show(res)}`).toBe(201);
}

describe('PROPFIND', () => {
  it('lists a folder three levels down at Depth 1, with hrefs percent-encoded and collections ending in /', async () => {
    for (const p of ['deep', 'deep/a b', 'deep/a b/c', 'deep/a b/c/sub']) await mkcol(encodeURI(p));
    await put('deep/a%20b/c/%C3%A9t%C3%A9.txt', 'summer');
    const res = await dav(t, 'PROPFIND', '/dav/kim/deep/a%20b/c/', as({ headers: { Depth: '1' } }));
    expect(res.status, show(res)).toBe(207);
    expect(res.text).toContain('<D:href>/dav/kim/deep/a%20b/c/</D:href>');
    expect(res.text).toContain('<D:href>/dav/kim/deep/a%20b/c/%C3%A9t%C3%A9.txt</D:href>');
    expect(hrefs(res).sort()).toEqual(['/dav/kim/deep/a b/c/', '/dav/kim/deep/a b/c/sub/', '/dav/kim/deep/a b/c/été.txt']);
    // Without the slash the collection is found all the same.
    const bare = await dav(t, 'PROPFIND', '/dav/kim/deep/a%20b/c', as({ headers: { Depth: '0' } }));
    expect(bare.status, show(bare)).toBe(207);
    expect(bare.text).toContain('<D:collection/>');
  });

  it('answers getetag, getlastmodified, getcontentlength and getcontenttype as the download sends them', async () => {
    await put('same.txt', 'the same bytes');
    const download = await t.api('GET', '/api/files/download', { username: 'kim', file: 'same.txt' });
    const etag = download.headers.get('etag')!;
    const modified = download.headers.get('last-modified')!;
    for (const [path, depth] of [
      ['/dav/kim/same.txt', '0'],
      ['/dav/kim/', '1'],
    ]) {
      const res = await dav(
        t,
        'PROPFIND',
        path,
        as({ headers: { Depth: depth }, body: propfindBody('getetag', 'getlastmodified', 'getcontentlength', 'getcontenttype') }),
      );
      expect(res.status, show(res)).toBe(207);
      const entry = res.text.split('<D:response>').find((r) => r.includes('/dav/kim/same.txt<'))!;
      expect(entry).toContain(`<D:getetag>${etag.replace(/"/g, '&quot;')}</D:getetag>`);
      expect(entry).toContain(`<D:getlastmodified>${modified}</D:getlastmodified>`);
      expect(entry).toContain('<D:getcontentlength>14</D:getcontentlength>');
      expect(entry).toContain('<D:getcontenttype>text/plain</D:getcontenttype>');
    }
  });

  it('answers a new getetag after a file is replaced by one of the same size, listed again at once', async () => {
    await mkcol('etags');
    await put('etags/same-size.txt', 'aaaa');
    const listedEtag = async () => {
      const res = await dav(t, 'PROPFIND', '/dav/kim/etags/', as({ headers: { Depth: '1' }, body: propfindBody('getetag') }));
      return /<D:getetag>([^<]*)<\/D:getetag>/.exec(res.text)![1].replace(/&quot;/g, '"');
    };
    // Once the file has settled its tag is strong, and a listing may keep it: the case a stale one would show.
    const before = await vi.waitFor(
      async () => {
        const tag = await listedEtag();
        expect(tag.startsWith('W/')).toBe(false);
        return tag;
      },
      { timeout: 10_000, interval: 200 },
    );
    expect(await listedEtag()).toBe(before);
    await put('etags/same-size.txt', 'bbbb');
    const download = await t.api('GET', '/api/files/download', { username: 'kim', folder: 'etags', file: 'same-size.txt' });
    const after = await listedEtag();
    expect(after).not.toBe(before);
    expect(after).toBe(download.headers.get('etag'));
  });

  it('lists again from kept entries, yet shows a dead property and a lock set since on that one file only', async () => {
    await mkcol('kept');
    for (const name of ['%C3%A9t%C3%A9.txt', 'b.txt', 'c.txt']) await put(`kept/${name}`, 'four');
    const listing = async () => {
      const res = await dav(t, 'PROPFIND', '/dav/kim/kept/', as({ headers: { Depth: '1' } }));
      expect(res.status, show(res)).toBe(207);
      const entries = new Map(res.text.split('<D:response>').map((r) => [/<D:href>([^<]*)</.exec(r)?.[1] ?? '', r] as const));
      return { text: res.text, entry: (name: string) => entries.get(`/dav/kim/kept/${name}`)! };
    };
    // Strong tags first (a weak one is never kept), then the same listing twice: the second from kept bytes.
    await vi.waitFor(async () => expect((await listing()).text).not.toContain('W/'), { timeout: 10_000, interval: 200 });
    const first = await listing();
    expect((await listing()).text).toBe(first.text);
    expect(first.entry('%C3%A9t%C3%A9.txt')).toContain('<D:displayname>été.txt</D:displayname>');

    const set =
      '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example:z"><D:set><D:prop><Z:colour>blue</Z:colour></D:prop></D:set></D:propertyupdate>';
    expect((await dav(t, 'PROPPATCH', '/dav/kim/kept/b.txt', as({ body: set }))).status).toBe(207);
    const lockinfo =
      '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
    const lock = await dav(t, 'LOCK', '/dav/kim/kept/c.txt', as({ body: lockinfo, headers: { Timeout: 'Second-60', Depth: '0' } }));
    expect(lock.status, show(lock)).toBe(200);

    const after = await listing();
    expect(after.entry('b.txt')).toContain('<Z:colour xmlns:Z="urn:example:z">blue</Z:colour>');
    expect(after.entry('c.txt')).toContain('<D:lockdiscovery><D:activelock>');
    expect(after.entry('%C3%A9t%C3%A9.txt')).toBe(first.entry('%C3%A9t%C3%A9.txt'));
    for (const name of ['%C3%A9t%C3%A9.txt', 'c.txt']) expect(after.entry(name)).not.toContain('colour');
    for (const name of ['%C3%A9t%C3%A9.txt', 'b.txt']) expect(after.entry(name)).toContain('<D:lockdiscovery></D:lockdiscovery>');
    const token = /^<(.+)>$/.exec(lock.headers['lock-token'] as string)![1];
    expect((await dav(t, 'UNLOCK', '/dav/kim/kept/c.txt', as({ headers: { 'Lock-Token': `<${token}>` } }))).status).toBe(204);
  });

  it('reports the quota as /api/user does (RFC 4331), and an unknown property 404 in its own propstat', async () => {
    const user = await t.api('GET', '/api/user', { username: 'kim' });
    const { usedBytes, maxBytes } = user.body.usage;
    const res = await dav(
      t,
      'PROPFIND',
      '/dav/kim/',
      as({ headers: { Depth: '0' }, body: propfindBody('quota-used-bytes', 'quota-available-bytes', 'nosuchprop') }),
    );
    expect(res.status, show(res)).toBe(207);
    expect(res.text).toContain(`<D:quota-used-bytes>${usedBytes}</D:quota-used-bytes>`);
    expect(res.text).toContain(`<D:quota-available-bytes>${maxBytes - usedBytes}</D:quota-available-bytes>`);
    expect(res.text).toMatch(/<D:nosuchprop\/><\/D:prop><D:status>HTTP\/1.1 404 Not Found/);
  });

  it('refuses Depth: infinity with 403 propfind-finite-depth', async () => {
    const res = await dav(t, 'PROPFIND', '/dav/kim/', as({ headers: { Depth: 'infinity' } }));
    expect(res.status, show(res)).toBe(403);
    expect(res.text).toContain('<D:propfind-finite-depth/>');
  });

  it('refuses a body with a DOCTYPE (400), one that is not XML (400) and one over 1 MiB (413)', async () => {
    const doctype = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>';
    expect((await dav(t, 'PROPFIND', '/dav/kim/', as({ headers: { Depth: '0' }, body: doctype }))).status).toBe(400);
    expect((await dav(t, 'PROPFIND', '/dav/kim/', as({ headers: { Depth: '0' }, body: '<D:propfind xmlns:D="DAV:">' }))).status).toBe(400);
    const big = `<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>${' '.repeat(1 << 20)}`;
    expect((await dav(t, 'PROPFIND', '/dav/kim/', as({ headers: { Depth: '0' }, body: big }))).status).toBe(413);
  });

  it('checks names as the API does: 400 for a reserved or malformed name, and for a path past 64 levels', async () => {
    for (const path of [
      '/dav/kim/CON',
      '/dav/kim/a%5Cb',
      '/dav/kim/bad%ZZ',
      '/dav/kim/trailing.',
      `/dav/kim/${Array(66).fill('d').join('/')}`,
    ]) {
      const res = await dav(t, 'PUT', path, as({ body: 'x' }));
      expect(res.status, `${path}: ${show(res)}`).toBe(400);
    }
  });
});

describe('GET and HEAD', () => {
  it('serve a file with ranges and validators, as the download does', async () => {
    await put('range.txt', '0123456789');
    const ranged = await dav(t, 'GET', '/dav/kim/range.txt', as({ headers: { Range: 'bytes=2-4' } }));
    expect(ranged.status).toBe(206);
    expect(ranged.text).toBe('234');
    const etag = ranged.headers.etag!;
    const again = await dav(t, 'GET', '/dav/kim/range.txt', as({ headers: { 'If-None-Match': etag } }));
    expect(again.status).toBe(304);
    const head = await dav(t, 'HEAD', '/dav/kim/range.txt', as());
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('10');
  });

  it('list a collection as plain text', async () => {
    await mkcol('listed');
    await put('listed/one.txt', '1');
    await mkcol('listed/inner');
    const res = await dav(t, 'GET', '/dav/kim/listed/', as());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('inner/\none.txt\n');
  });
});

describe('PUT, MKCOL and DELETE', () => {
  it('PUT answers 201 for a new file and 204 for a replaced one; zero bytes then a second PUT works (Finder)', async () => {
    expect((await put('finder.txt', '')).status).toBe(201);
    expect((await put('finder.txt', 'now with bytes')).status).toBe(204);
    expect((await dav(t, 'GET', '/dav/kim/finder.txt', as())).text).toBe('now with bytes');
  });

  it('PUT takes a chunked body without a length', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: t.port,
          method: 'PUT',
          path: '/dav/kim/chunked.bin',
          headers: { Authorization: `Basic ${Buffer.from(auth.join(':')).toString('base64')}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('part one, ');
      req.end('part two');
    });
    expect(status).toBe(201);
    expect((await dav(t, 'GET', '/dav/kim/chunked.bin', as())).text).toBe('part one, part two');
  });

  it('refuses a PUT with Content-Range (400), onto a collection (405) and into a missing parent (409)', async () => {
    await mkcol('coll');
    expect((await dav(t, 'PUT', '/dav/kim/cr.txt', as({ body: 'x', headers: { 'Content-Range': 'bytes 0-0/1' } }))).status).toBe(400);
    expect((await dav(t, 'PUT', '/dav/kim/coll', as({ body: 'x' }))).status).toBe(405);
    expect((await dav(t, 'PUT', '/dav/kim/missing/x.txt', as({ body: 'x' }))).status).toBe(409);
    expect((await dav(t, 'GET', '/dav/kim/cr.txt', as())).status).toBe(404);
  });

  it('MKCOL: 405 where something exists, 409 without a parent, 415 with a body', async () => {
    await mkcol('made');
    expect((await dav(t, 'MKCOL', '/dav/kim/made', as())).status).toBe(405);
    expect((await dav(t, 'MKCOL', '/dav/kim/no/parent', as())).status).toBe(409);
    expect((await dav(t, 'MKCOL', '/dav/kim/withbody', as({ body: '<x/>' }))).status).toBe(415);
  });

  it('DELETE puts a file and a folder into the trash (204), as the API’s delete', async () => {
    await mkcol('bin');
    await put('bin/gone.txt', 'bye');
    await put('loose.txt', 'bye');
    expect((await dav(t, 'DELETE', '/dav/kim/loose.txt', as())).status).toBe(204);
    expect((await dav(t, 'DELETE', '/dav/kim/bin/', as())).status).toBe(204);
    expect((await dav(t, 'DELETE', '/dav/kim/bin/', as())).status).toBe(404);
    const trash = await t.api('GET', '/api/trash', { username: 'kim' });
    const names = (trash.body.items as { name: string }[]).map((i) => i.name);
    expect(names).toEqual(expect.arrayContaining(['loose.txt', 'bin']));
  });

  it('refuses a PUT over the quota with 507 and keeps nothing', async () => {
    expect((await t.api('POST', '/api/role/create', { name: 'tiny', maxStorage: '1', badge: 'https://example.com/b.png' })).status).toBe(
      201,
    );
    await makeUser(t, 'lou');
    expect((await t.api('POST', '/api/user/role', { username: 'lou', name: 'tiny' })).status).toBe(201);
    const res = await dav(t, 'PUT', '/dav/lou/big.bin', { auth: ['lou', passwordOf('lou')], body: Buffer.alloc(2 << 20, 1) });
    expect(res.status, show(res)).toBe(507);
    expect((await dav(t, 'GET', '/dav/lou/big.bin', { auth: ['lou', passwordOf('lou')] })).status).toBe(404);
    const user = await t.api('GET', '/api/user', { username: 'lou' });
    expect(user.body.usage.usedBytes).toBe(0);
  });
});

describe('COPY and MOVE', () => {
  const destination = (path: string) => `${t.url}/dav/kim/${path}`;

  it('copies a subtree under a new name, and Depth 0 copies an empty collection', async () => {
    await mkcol('src');
    await mkcol('src/inner');
    await put('src/inner/f.txt', 'deep file');
    await put('src/top.txt', 'top');
    const copy = await dav(t, 'COPY', '/dav/kim/src/', as({ headers: { Destination: destination('dst/') } }));
    expect(copy.status, show(copy)).toBe(201);
    expect((await dav(t, 'GET', '/dav/kim/dst/inner/f.txt', as())).text).toBe('deep file');
    expect((await dav(t, 'GET', '/dav/kim/src/inner/f.txt', as())).text).toBe('deep file');
    const shallow = await dav(t, 'COPY', '/dav/kim/src/', as({ headers: { Destination: destination('shallow/'), Depth: '0' } }));
    expect(shallow.status, show(shallow)).toBe(201);
    const listing = await dav(t, 'PROPFIND', '/dav/kim/shallow/', as({ headers: { Depth: '1' } }));
    expect(hrefs(listing)).toEqual(['/dav/kim/shallow/']);
  });

  it('honours Overwrite: F with 412 and replaces with T (204)', async () => {
    await put('one.txt', 'one');
    await put('two.txt', 'two');
    const refused = await dav(t, 'COPY', '/dav/kim/one.txt', as({ headers: { Destination: destination('two.txt'), Overwrite: 'F' } }));
    expect(refused.status).toBe(412);
    expect((await dav(t, 'GET', '/dav/kim/two.txt', as())).text).toBe('two');
    const replaced = await dav(t, 'MOVE', '/dav/kim/one.txt', as({ headers: { Destination: destination('two.txt') } }));
    expect(replaced.status, show(replaced)).toBe(204);
    expect((await dav(t, 'GET', '/dav/kim/two.txt', as())).text).toBe('one');
    expect((await dav(t, 'GET', '/dav/kim/one.txt', as())).status).toBe(404);
  });

  it('moves a subtree into another folder under a new name, its share link following', async () => {
    await mkcol('from');
    await mkcol('from/tree');
    await put('from/tree/shared.txt', 'shared');
    await mkcol('to');
    const share = await t.api('POST', '/api/files/share', { username: 'kim', folder: 'from/tree', file: 'shared.txt' });
    expect(share.status, share.text).toBe(201);
    const link = new URL(share.body.file.shareUrl as string).pathname;
    const moved = await dav(t, 'MOVE', '/dav/kim/from/tree/', as({ headers: { Destination: destination('to/renamed/') } }));
    expect(moved.status, show(moved)).toBe(201);
    expect((await dav(t, 'GET', '/dav/kim/to/renamed/shared.txt', as())).text).toBe('shared');
    expect((await dav(t, 'PROPFIND', '/dav/kim/from/tree/', as({ headers: { Depth: '0' } }))).status).toBe(404);
    const shared = await t.raw('GET', link, { key: null });
    expect(shared.status).toBe(200);
    expect(shared.text).toBe('shared');
  });

  it('refuses another server’s Destination (502), another user’s (403), the same resource (403), a missing parent (409)', async () => {
    await put('here.txt', 'x');
    const cases: [string, number][] = [
      ['http://elsewhere.example/dav/kim/x.txt', 502],
      [`${t.url}/dav/someone/x.txt`, 403],
      [destination('here.txt'), 403],
      [destination('nowhere/x.txt'), 409],
    ];
    for (const [target, status] of cases) {
      const res = await dav(t, 'MOVE', '/dav/kim/here.txt', as({ headers: { Destination: target } }));
      expect(res.status, `${target}: ${show(res)}`).toBe(status);
    }
    expect((await dav(t, 'GET', '/dav/kim/here.txt', as())).text).toBe('x');
  });

  it('refuses to move or copy a resource onto the collection that holds it (403), which stays whole', async () => {
    await mkcol('holder');
    await mkcol('holder/inner');
    await put('holder/inner/kept.txt', 'kept');
    for (const method of ['MOVE', 'COPY']) {
      const res = await dav(t, method, '/dav/kim/holder/inner/', as({ headers: { Destination: destination('holder/') } }));
      expect(res.status, `${method}: ${show(res)}`).toBe(403);
    }
    expect((await dav(t, 'GET', '/dav/kim/holder/inner/kept.txt', as())).text).toBe('kept');
  });
});

describe('the change feed', () => {
  it('announces WebDAV’s changes as it does the API’s: a PUT, a MKCOL, a MOVE and a DELETE (into the trash)', async () => {
    const stream = await openEventStream(t.url, { 'API-Key': t.key });
    try {
      await mkcol('feed');
      await put('feed/news.txt', 'n');
      const moved = await dav(t, 'MOVE', '/dav/kim/feed/news.txt', as({ headers: { Destination: `${t.url}/dav/kim/feed/old-news.txt` } }));
      expect(moved.status, show(moved)).toBe(201);
      expect((await dav(t, 'DELETE', '/dav/kim/feed/old-news.txt', as())).status).toBe(204);
      const seen = () => stream.messages.map((m) => `${m.data.type} ${m.data.folder ?? ''}/${m.data.file ?? ''}`);
      await vi.waitFor(
        () =>
          expect(seen()).toEqual(
            expect.arrayContaining(['folder.added feed/', 'file.added feed/news.txt', 'file.removed feed/old-news.txt', 'trash.changed /']),
          ),
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      await stream.close();
    }
  });
});
