/**
 * Uploads (streamed, overwrite, quota, concurrent reservations), downloads (Range,
 * attachment) and share links (revocation, rename, delete, reuse of a name).
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { createUser, startTestDaemon, storedBytes, storedNames, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody, expectFileEntry } from '../helpers/records.js';

const MIB = 1024 * 1024;
let t: TestDaemon;

/** A body fetch streams as it is generated (no Content-Length), `size` bytes of a pattern. */
function streamedBody(size: number, chunk = 256 * 1024): { body: ReadableStream<Uint8Array>; sha256: string } {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  for (let sent = 0; sent < size; sent += chunk) {
    const buf = Buffer.alloc(Math.min(chunk, size - sent), (sent / chunk) % 251);
    hash.update(buf);
    chunks.push(buf);
  }
  return { body: Readable.toWeb(Readable.from(chunks)) as ReadableStream<Uint8Array>, sha256: hash.digest('hex') };
}

const streamInit = (body: ReadableStream<Uint8Array>) => ({ body, duplex: 'half' }) as RequestInit;
const tempFiles = () => readdir(path.join(t.dataDir, 'tmp')).catch(() => [] as string[]);
const usedBytes = async (username: string) => (await t.api('GET', '/api/user', { username })).body.usage.usedBytes as number;

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
  await t.api('POST', '/api/role/create', { name: 'tiny', maxStorage: '1', badge: 'https://example.com/t.png' });
});
afterAll(() => t.close());

describe('upload', () => {
  it('streams a few MiB to disk and reads them back byte for byte', async () => {
    const { body, sha256 } = streamedBody(5 * MIB + 123);
    const res = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'big.bin' }, streamInit(body));
    expect(res.status, res.text).toBe(201);
    expectFileEntry(res.body.file);
    expect(res.body.file.size).toBe(5 * MIB + 123);
    const onDisk = await storedBytes(t, 'ana', 'big.bin');
    expect(createHash('sha256').update(onDisk).digest('hex')).toBe(sha256);
    const download = await fetch(`${t.url}/api/files/download?username=ana&file=big.bin`, { headers: { 'API-Key': t.key } });
    expect(
      createHash('sha256')
        .update(Buffer.from(await download.arrayBuffer()))
        .digest('hex'),
    ).toBe(sha256);
    expect(await tempFiles()).toEqual([]);
  });

  it('refuses to replace a file without overwrite=true and replaces it with it', async () => {
    await upload(t, 'ana', 'notes.txt', 'first');
    expectErrorBody(
      await t.api('POST', '/api/files/upload', { username: 'ana', file: 'notes.txt' }, { body: 'second' }),
      409,
      'file_exists',
    );
    expect((await storedBytes(t, 'ana', 'notes.txt')).toString('utf8')).toBe('first');
    const res = await t.api(
      'POST',
      '/api/files/upload',
      { username: 'ana', file: 'notes.txt', overwrite: 'true' },
      { body: 'second, longer' },
    );
    expect(res.status).toBe(201);
    expect(res.body.file.size).toBe(14);
    expect((await storedBytes(t, 'ana', 'notes.txt')).toString('utf8')).toBe('second, longer');
    expect(await tempFiles()).toEqual([]);
  });

  it('stores an empty file', async () => {
    const res = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'empty' }, { body: '' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.file.size).toBe(0);
    const back = await t.api('GET', '/api/files/download', { username: 'ana', file: 'empty' });
    expect(back.status).toBe(200);
    expect(back.text).toBe('');
    expect(back.headers.get('Content-Length')).toBe('0');
  });

  it('answers HEAD with the headers and length of the download, without a body', async () => {
    await upload(t, 'ana', 'head.txt', 'twelve bytes');
    const res = await t.api('HEAD', '/api/files/download', { username: 'ana', file: 'head.txt' });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Length')).toBe('12');
    expect(res.headers.get('Content-Disposition')).toMatch(/^attachment;/);
    expect(res.text).toBe('');
  });
});

describe('quota', () => {
  beforeAll(async () => {
    for (const username of ['q1', 'q2', 'q3']) {
      await createUser(t, username);
      await t.api('POST', '/api/user/role', { username, name: 'tiny' });
    }
  });

  it('answers 507 to a 2 MiB upload over a 1 MB quota, with or without Content-Length, and keeps nothing', async () => {
    expectErrorBody(
      await t.api('POST', '/api/files/upload', { username: 'q1', file: 'big' }, { body: new Uint8Array(2 * MIB) }),
      507,
      'quota_exceeded',
    );
    const { body } = streamedBody(2 * MIB, 64 * 1024);
    expectErrorBody(await t.api('POST', '/api/files/upload', { username: 'q1', file: 'big' }, streamInit(body)), 507, 'quota_exceeded');
    expect(await storedNames(t, 'q1')).toEqual([]);
    expect(await usedBytes('q1')).toBe(0);
    await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
  });

  it('lets an upload fill the quota exactly and refuses one byte more', async () => {
    await upload(t, 'q2', 'exact', Buffer.alloc(MIB - 10));
    expectErrorBody(
      await t.api('POST', '/api/files/upload', { username: 'q2', file: 'more' }, { body: 'x'.repeat(11) }),
      507,
      'quota_exceeded',
    );
    await upload(t, 'q2', 'fits', 'x'.repeat(10));
    expect(await usedBytes('q2')).toBe(MIB);
    // Replacing a file counts only the difference.
    const res = await t.api('POST', '/api/files/upload', { username: 'q2', file: 'fits', overwrite: 'true' }, { body: 'y'.repeat(10) });
    expect(res.status, res.text).toBe(201);
  });

  it('never lets parallel uploads pass the quota together, and leaves no temp file', async () => {
    const size = 300 * 1024;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.api('POST', '/api/files/upload', { username: 'q3', file: `part${i}` }, streamInit(streamedBody(size, 16 * 1024).body)),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(
      statuses.every((s) => s === 201 || s === 507),
      statuses.join(),
    ).toBe(true);
    const stored = results.filter((r) => r.status === 201).length;
    expect(stored).toBeGreaterThanOrEqual(1);
    expect(stored).toBeLessThanOrEqual(3);
    expect(await usedBytes('q3')).toBe(stored * size);
    expect(await usedBytes('q3')).toBeLessThanOrEqual(MIB);
    const onDisk = await storedNames(t, 'q3');
    expect(onDisk).toHaveLength(stored);
    await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
  });

  it('reports overQuota when the role shrinks below the usage, and refuses uploads then', async () => {
    await createUser(t, 'q4');
    await upload(t, 'q4', 'a', Buffer.alloc(2 * MIB));
    await t.api('POST', '/api/user/role', { username: 'q4', name: 'tiny' });
    const user = (await t.api('GET', '/api/user', { username: 'q4' })).body;
    expect(user.usage).toEqual({ usedBytes: 2 * MIB, maxBytes: MIB, overQuota: true });
    expectErrorBody(await t.api('POST', '/api/files/upload', { username: 'q4', file: 'b' }, { body: 'x' }), 507, 'quota_exceeded');
  });
});

describe('download', () => {
  const content = '0123456789abcdefghij';
  beforeAll(async () => {
    await upload(t, 'ana', 'digits.txt', content);
    await upload(t, 'ana', 'résumé final (2).pdf', 'pdf');
  });
  const get = (file: string, range?: string) =>
    t.api('GET', '/api/files/download', { username: 'ana', file }, range ? { headers: { Range: range } } : {});

  it('sends the whole file with Content-Length and Accept-Ranges', async () => {
    const res = await get('digits.txt');
    expect(res.status).toBe(200);
    expect(res.text).toBe(content);
    expect(res.headers.get('Content-Length')).toBe('20');
    expect(res.headers.get('Accept-Ranges')).toBe('bytes');
  });

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=10-', 10, 19],
    ['bytes=-5', 15, 19],
    ['bytes=18-100', 18, 19],
  ])('answers 206 with Content-Range to %s', async (range, start, end) => {
    const res = await get('digits.txt', range);
    expect(res.status).toBe(206);
    expect(res.headers.get('Content-Range')).toBe(`bytes ${start}-${end}/20`);
    expect(res.text).toBe(content.slice(start, end + 1));
    expect(res.headers.get('Content-Length')).toBe(String(end - start + 1));
  });

  it.each([['bytes=20-'], ['bytes=25-30'], ['bytes=-0'], ['bytes=9-3']])('answers 416 with Content-Range */size to %s', async (range) => {
    const res = await get('digits.txt', range);
    expectErrorBody(res, 416, 'range_not_satisfiable');
    expect(res.headers.get('Content-Range')).toBe('bytes */20');
  });

  it('sends Content-Disposition: attachment with the name kept intact', async () => {
    const res = await get('résumé final (2).pdf');
    const disposition = res.headers.get('Content-Disposition')!;
    expect(disposition).toMatch(/^attachment; filename="[^"]*";/);
    expect(decodeURIComponent(/filename\*=UTF-8''([^;]+)$/.exec(disposition)![1])).toBe('résumé final (2).pdf');
    expect(res.headers.get('Content-Type')).toBe('application/pdf');
  });

  it('downloads a file inside a folder', async () => {
    await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
    await upload(t, 'ana', 'digits.txt', 'folder copy', { folder: 'docs' });
    expect((await t.api('GET', '/api/files/download', { username: 'ana', file: 'digits.txt', folder: 'docs' })).text).toBe('folder copy');
    expect((await get('digits.txt')).text).toBe(content);
  });
});

describe('share links', () => {
  const openLink = (url: string, headers: Record<string, string> = {}) => t.raw('GET', new URL(url).pathname, { key: null, headers });
  const share = async (file: string, folder?: string) => {
    const res = await t.api('POST', '/api/files/share', { username: 'ana', file, ...(folder ? { folder } : {}) });
    expect(res.status, res.text).toBe(201);
    return res.body.file.shareUrl as string;
  };

  it('serves the bytes without a key, with Range, until unshared', async () => {
    await upload(t, 'ana', 's1.txt', 'shared content');
    const url = await share('s1.txt');
    const res = await openLink(url);
    expect(res.status).toBe(200);
    expect(res.text).toBe('shared content');
    expect(res.headers.get('Content-Disposition')).toMatch(/^attachment; filename="s1.txt"/);
    const part = await openLink(url, { Range: 'bytes=7-' });
    expect(part.status).toBe(206);
    expect(part.text).toBe('content');
    expect((await t.api('POST', '/api/files/noshare', { username: 'ana', file: 's1.txt' })).status).toBe(201);
    expectErrorBody(await openLink(url), 404, 'share_not_found');
    expectErrorBody(await t.api('POST', '/api/files/noshare', { username: 'ana', file: 's1.txt' }), 404, 'share_not_found');
  });

  it('gives each share a new unguessable token', async () => {
    await upload(t, 'ana', 's2.txt', 'x');
    const first = await share('s2.txt');
    await t.api('POST', '/api/files/noshare', { username: 'ana', file: 's2.txt' });
    const second = await share('s2.txt');
    expect(second).not.toBe(first);
    expect(new URL(second).pathname).toMatch(/^\/s\/[A-Za-z0-9_-]{43}$/);
    expect((await openLink(first)).status).toBe(404);
    expect((await openLink(second)).status).toBe(200);
  });

  it('follows the file through a rename', async () => {
    await upload(t, 'ana', 'before.txt', 'renamed bytes');
    const url = await share('before.txt');
    const renamed = await t.api('POST', '/api/files/rename', { username: 'ana', file: 'before.txt', newname: 'after.txt' });
    expect(renamed.body.file).toMatchObject({ name: 'after.txt', shared: true, shareUrl: url });
    const res = await openLink(url);
    expect(res.text).toBe('renamed bytes');
    expect(res.headers.get('Content-Disposition')).toMatch(/filename="after.txt"/);
    const list = (await t.api('GET', '/api/files', { username: 'ana' })).body.files as { name: string; shareUrl: string | null }[];
    expect(list.find((f) => f.name === 'after.txt')!.shareUrl).toBe(url);
  });

  onDisk(() => {
    it('costs no write of db.json when no record follows the rename (no link, no property, no lock)', async () => {
      await upload(t, 'ana', 'plain.txt', 'no link');
      const db = path.join(t.dataDir, 'db.json');
      const before = await stat(db, { bigint: true });
      const renamed = await t.api('POST', '/api/files/rename', { username: 'ana', file: 'plain.txt', newname: 'plain-2.txt' });
      expect(renamed.status).toBe(201);
      const after = await stat(db, { bigint: true });
      // db.json is written whole to a temp file renamed over it: a write changes its inode.
      expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
      await t.stop();
      await t.restart();
      const names = ((await t.api('GET', '/api/files', { username: 'ana' })).body.files as { name: string }[]).map((f) => f.name);
      expect(names).toContain('plain-2.txt');
      expect(names).not.toContain('plain.txt');
    });
  });

  it('follows a file in a folder through a rename', async () => {
    await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'pics' });
    await upload(t, 'ana', 'cat.jpg', 'meow', { folder: 'pics' });
    const url = await share('cat.jpg', 'pics');
    await t.api('POST', '/api/folders/files/rename', { username: 'ana', folder: 'pics', file: 'cat.jpg', newname: 'kitten.jpg' });
    expect((await openLink(url)).text).toBe('meow');
  });

  it('is revoked by deleting the file, and a new file under the old name is not shared', async () => {
    await upload(t, 'ana', 'gone.txt', 'old secret');
    const url = await share('gone.txt');
    expect((await t.api('POST', '/api/files/delete', { username: 'ana', file: 'gone.txt' })).status).toBe(200);
    expectErrorBody(await openLink(url), 404, 'share_not_found');
    const again = await upload(t, 'ana', 'gone.txt', 'new content');
    expect(again.body.file).toMatchObject({ shared: false, shareUrl: null });
    expectErrorBody(await openLink(url), 404, 'share_not_found');
  });

  it('is revoked by deleting the folder, and by deleting the user', async () => {
    await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'tmpdir' });
    await upload(t, 'ana', 'f.txt', 'in folder', { folder: 'tmpdir' });
    const folderUrl = await share('f.txt', 'tmpdir');
    await t.api('POST', '/api/folders/delete', { username: 'ana', folder: 'tmpdir' });
    expect((await openLink(folderUrl)).status).toBe(404);

    await createUser(t, 'leaver');
    await upload(t, 'leaver', 'l.txt', 'bye');
    const res = await t.api('POST', '/api/files/share', { username: 'leaver', file: 'l.txt' });
    await t.api('POST', '/api/user/delete', { username: 'leaver' });
    expect((await openLink(res.body.file.shareUrl)).status).toBe(404);
  });

  it('follows the user through a rename', async () => {
    await createUser(t, 'mover');
    await upload(t, 'mover', 'm.txt', 'moved');
    const res = await t.api('POST', '/api/files/share', { username: 'mover', file: 'm.txt' });
    await t.api('POST', '/api/user/edit', {
      username: 'mover',
      newusername: 'moved',
      newemail: 'mover@example.com',
      newpassword: 'password123',
    });
    expect((await openLink(res.body.file.shareUrl)).text).toBe('moved');
    const list = (await t.api('GET', '/api/files', { username: 'moved' })).body.files;
    expect(list[0]).toMatchObject({ name: 'm.txt', shared: true, shareUrl: res.body.file.shareUrl });
  });

  it('keeps the link when the file is overwritten', async () => {
    await upload(t, 'ana', 'edit.txt', 'v1');
    const url = await share('edit.txt');
    await upload(t, 'ana', 'edit.txt', 'v2', { overwrite: 'true' });
    expect((await openLink(url)).text).toBe('v2');
  });
});
