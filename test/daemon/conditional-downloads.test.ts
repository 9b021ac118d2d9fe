/**
 * Conditional and resumed downloads (issue 22, item 9; RFC 9110 §13): downloads and share links
 * carry a strong ETag and Last-Modified that change with the bytes; a resumed download (`Range`
 * with `If-Range`) of a file that changed meanwhile gets the whole new file (200), never new
 * bytes spliced onto old ones; `If-None-Match` and `If-Modified-Since` answer 304.
 */
import { utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { createUser, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

let t: TestDaemon;
let n = 0;

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
});
afterAll(() => t.close());

type Open = (headers?: Record<string, string>, method?: string) => Promise<ApiResponse>;

/** A new file of `content` and the two ways to fetch it: the API's download and a share link. */
async function newFile(content: string): Promise<{ file: string; download: Open; link: Open }> {
  const file = `f${++n}.txt`;
  await upload(t, 'ana', file, content);
  const shared = await t.api('POST', '/api/files/share', { username: 'ana', file });
  expect(shared.status, shared.text).toBe(201);
  const linkPath = new URL(shared.body.file.shareUrl as string).pathname;
  return {
    file,
    download: (headers = {}, method = 'GET') => t.api(method, '/api/files/download', { username: 'ana', file }, { headers }),
    link: (headers = {}, method = 'GET') => t.raw(method, linkPath, { key: null, headers }),
  };
}

const overwrite = (file: string, content: string) => upload(t, 'ana', file, content, { overwrite: 'true' });

interface Validators {
  etag: string;
  lastModified: string;
}

/**
 * The validators of what `open` serves now, once they are strong: a file on disk changed less
 * than a second ago is named by a weak ETag (its times may not move again for a write within the
 * same clock tick), so this polls until the ETag is strong. An object's is strong at once.
 */
async function validatorsOf(open: Open, content: string): Promise<Validators> {
  return vi.waitFor(
    async () => {
      const res = await open();
      expect(res.status).toBe(200);
      expect(res.text).toBe(content);
      const etag = res.headers.get('ETag') ?? '';
      expect(etag).toMatch(/^"[\x21\x23-\x7e]+"$/);
      const lastModified = res.headers.get('Last-Modified') ?? '';
      expect(new Date(lastModified).toUTCString()).toBe(lastModified);
      return { etag, lastModified };
    },
    { timeout: 10_000, interval: 100 },
  );
}

/** Expects the whole file as a 200, not a slice. */
function expectWhole(res: ApiResponse, content: string): void {
  expect(res.status, res.text).toBe(200);
  expect(res.text).toBe(content);
  expect(res.headers.get('Content-Range')).toBeNull();
  expect(res.headers.get('Content-Length')).toBe(String(Buffer.byteLength(content)));
}

/** Expects bytes `start`.. of `content` as a 206. */
function expectSlice(res: ApiResponse, content: string, start: number): void {
  expect(res.status, res.text).toBe(206);
  expect(res.text).toBe(content.slice(start));
  expect(res.headers.get('Content-Range')).toBe(`bytes ${start}-${content.length - 1}/${content.length}`);
}

/** Expects a 304: no body, the current validators. */
function expectNotModified(res: ApiResponse, current: Validators): void {
  expect(res.status).toBe(304);
  expect(res.text).toBe('');
  expect(res.headers.get('ETag')).toBe(current.etag);
}

describe.each(['download', 'link'] as const)('conditional requests through the %s', (via) => {
  it('sends a strong ETag and Last-Modified, and another ETag once the bytes change (same size)', async () => {
    const f = await newFile('first version');
    const before = await validatorsOf(f[via], 'first version');
    await overwrite(f.file, 'other version');
    const after = await validatorsOf(f[via], 'other version');
    expect(after.etag).not.toBe(before.etag);
  });

  it.each([
    ['the same size', 'old bytes, version one', 'new bytes, version two'],
    ['another size', 'old bytes, version one', 'the new bytes of a longer version two'],
  ])(
    'resumes with If-Range after an overwrite of %s: whole new file for the old ETag, a slice for the current one',
    async (_, old, now) => {
      const f = await newFile(old);
      const stale = await validatorsOf(f[via], old);
      await overwrite(f.file, now);
      expectWhole(await f[via]({ Range: 'bytes=10-', 'If-Range': stale.etag }), now);
      const current = await validatorsOf(f[via], now);
      expectSlice(await f[via]({ Range: 'bytes=10-', 'If-Range': current.etag }), now, 10);
    },
  );

  it('resumes with If-Range by date only when it is Last-Modified exactly', async () => {
    const content = 'dated content of the file';
    const f = await newFile(content);
    const current = await validatorsOf(f[via], content);
    expectSlice(await f[via]({ Range: 'bytes=6-', 'If-Range': current.lastModified }), content, 6);
    const modified = Date.parse(current.lastModified);
    for (const other of [modified - 1000, modified + 1000, modified + 3_600_000]) {
      expectWhole(await f[via]({ Range: 'bytes=6-', 'If-Range': new Date(other).toUTCString() }), content);
    }
  });

  it('ignores a Range it cannot satisfy when If-Range does not match (200, not 416)', async () => {
    const f = await newFile('short');
    expectWhole(await f[via]({ Range: 'bytes=100-', 'If-Range': '"not-this-one"' }), 'short');
    expectWhole(await f[via]({ Range: 'bytes=100-', 'If-Range': 'W/"weak"' }), 'short');
  });

  it('answers If-None-Match with 304 for the current ETag (in a list, weak or *), 200 for a stale one', async () => {
    const f = await newFile('cached content');
    const current = await validatorsOf(f[via], 'cached content');
    expectNotModified(await f[via]({ 'If-None-Match': current.etag }), current);
    expectNotModified(await f[via]({ 'If-None-Match': `"stale", W/${current.etag}` }), current);
    expectNotModified(await f[via]({ 'If-None-Match': '*' }), current);
    expectNotModified(await f[via]({ 'If-None-Match': current.etag }, 'HEAD'), current);
    expectWhole(await f[via]({ 'If-None-Match': '"stale"' }), 'cached content');
    await overwrite(f.file, 'changed content');
    expectWhole(await f[via]({ 'If-None-Match': current.etag }), 'changed content');
  });

  it('answers If-Modified-Since with 304 when not modified since, 200 otherwise, and not at all beside If-None-Match', async () => {
    const f = await newFile('dated');
    const current = await validatorsOf(f[via], 'dated');
    expectNotModified(await f[via]({ 'If-Modified-Since': current.lastModified }), current);
    const later = new Date(Date.parse(current.lastModified) + 3_600_000).toUTCString();
    expectNotModified(await f[via]({ 'If-Modified-Since': later }), current);
    const earlier = new Date(Date.parse(current.lastModified) - 3_600_000).toUTCString();
    expectWhole(await f[via]({ 'If-Modified-Since': earlier }), 'dated');
    expectWhole(await f[via]({ 'If-None-Match': '"stale"', 'If-Modified-Since': later }), 'dated');
  });

  it('answers If-Match and If-Unmodified-Since with 412 once they name other bytes, and the bytes while they hold', async () => {
    const f = await newFile('guarded');
    const current = await validatorsOf(f[via], 'guarded');
    for (const ifMatch of [current.etag, `"other", ${current.etag}`, '*']) expectWhole(await f[via]({ 'If-Match': ifMatch }), 'guarded');
    expectWhole(await f[via]({ 'If-Unmodified-Since': current.lastModified }), 'guarded');
    expectErrorBody(await f[via]({ 'If-Match': `W/${current.etag}` }), 412, 'precondition_failed');
    const earlier = new Date(Date.parse(current.lastModified) - 3_600_000).toUTCString();
    expectErrorBody(await f[via]({ 'If-Unmodified-Since': earlier }), 412, 'precondition_failed');
    await overwrite(f.file, 'changed');
    expectErrorBody(await f[via]({ 'If-Match': current.etag, Range: 'bytes=2-' }), 412, 'precondition_failed');
  });

  it('keeps the attachment, nosniff and the inert CSP on every answer', async () => {
    const f = await newFile('headers');
    const current = await validatorsOf(f[via], 'headers');
    for (const res of [await f[via](), await f[via]({ Range: 'bytes=1-', 'If-Range': current.etag })]) {
      expect(res.headers.get('Content-Disposition')).toMatch(/^attachment;/);
      expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(res.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
    }
  });
});

describe('ranges', () => {
  const content = '0123456789abcdefghij';
  let f: Awaited<ReturnType<typeof newFile>>;
  beforeAll(async () => {
    f = await newFile(content);
  });

  it('serves a suffix longer than the file as the whole file (206)', async () => {
    expectSlice(await f.download({ Range: 'bytes=-100' }), content, 0);
  });

  it('serves two ranges that touch as one (206), and two apart as the whole file (200)', async () => {
    expectSlice(await f.download({ Range: 'bytes=10-14,15-' }), content, 10);
    expectWhole(await f.download({ Range: 'bytes=0-1,5-6' }), content);
  });

  it('ignores a malformed Range or another unit (200)', async () => {
    for (const range of ['bytes=x-3', 'bytes=-', 'items=0-3', 'bytes 0-3']) expectWhole(await f.download({ Range: range }), content);
  });

  it('still answers 416 with Content-Range */size to a range past the end', async () => {
    const res = await f.download({ Range: 'bytes=20-' });
    expectErrorBody(res, 416, 'range_not_satisfiable');
    expect(res.headers.get('Content-Range')).toBe('bytes */20');
  });
});

onDisk(() => {
  describe('files changed in the storage folder by another program', () => {
    const onDiskPath = (file: string) => path.join(t.storageDir, 'ana', file);

    it.each([
      ['the same size, in place', 'disk bytes, version one', 'disk bytes, version two'],
      ['another size', 'disk bytes, version one', 'disk bytes of a much longer version two'],
    ])('resumes with If-Range after a write of %s: whole new file for the old ETag', async (_, old, now) => {
      const f = await newFile(old);
      const stale = await validatorsOf(f.download, old);
      await writeFile(onDiskPath(f.file), now);
      expectWhole(await f.download({ Range: 'bytes=10-', 'If-Range': stale.etag }), now);
      expectWhole(await f.link({ Range: 'bytes=10-', 'If-Range': stale.etag }), now);
      const current = await validatorsOf(f.download, now);
      expect(current.etag).not.toBe(stale.etag);
      expectSlice(await f.download({ Range: 'bytes=10-', 'If-Range': current.etag }), now, 10);
    });

    it('resumes with If-Range by date after a write: whole new file for the old Last-Modified', async () => {
      const old = 'an old file from last year';
      const f = await newFile(old);
      const lastYear = new Date(Date.now() - 365 * 24 * 3_600_000);
      await utimes(onDiskPath(f.file), lastYear, lastYear);
      const stale = await validatorsOf(f.download, old);
      expect(stale.lastModified).toBe(new Date(Math.floor(lastYear.getTime() / 1000) * 1000).toUTCString());
      await writeFile(onDiskPath(f.file), 'an new file from this year');
      expectWhole(await f.download({ Range: 'bytes=3-', 'If-Range': stale.lastModified }), 'an new file from this year');
      expectWhole(await f.download({ 'If-Modified-Since': stale.lastModified }), 'an new file from this year');
    });

    it('names a file changed less than a second ago by a weak ETag, which If-Range never matches', async () => {
      const f = await newFile('settled');
      await validatorsOf(f.download, 'settled');
      // Written and asked again until an answer comes within the second (a loaded machine may miss it once).
      const weak = await vi.waitFor(
        async () => {
          await writeFile(onDiskPath(f.file), 'just now');
          const etag = (await f.download()).headers.get('ETag') ?? '';
          expect(etag).toMatch(/^W\/"/);
          return etag;
        },
        { timeout: 10_000, interval: 50 },
      );
      expectWhole(await f.download({ Range: 'bytes=2-', 'If-Range': weak }), 'just now');
      expect((await f.download({ 'If-None-Match': weak })).status).toBe(304);
      // Once settled, the strong tag is another: a copy validated by the weak one (which may name
      // bytes a write within the same tick replaced) is sent again, not answered 304.
      const settled = await validatorsOf(f.download, 'just now');
      expect(settled.etag).not.toBe(weak.slice(2));
      expectWhole(await f.download({ 'If-None-Match': weak }), 'just now');
    });
  });
});
