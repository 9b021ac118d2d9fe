/**
 * files.thumbnail under conditional requests (issue 22, follow-up to item 9): the same rules as a
 * download (daemon/http/conditional.ts), so If-None-Match compares weakly, takes lists and `*`,
 * and If-Modified-Since counts only without it; a picture of a file changed less than a second
 * ago is named by a weak ETag and never kept, so a rewrite that leaves the file's stat as it was
 * cannot leave an old picture in the cache.
 */
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { mappedWriter, type MappedWriter } from '../helpers/mapped-writer.js';
import { expectErrorBody } from '../helpers/records.js';
import { picture, redOf, thumbnail, type ThumbnailAnswer } from '../helpers/thumbnails.js';

let t: TestDaemon;
const SIZE = { size: 64 };

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
});
afterAll(() => t.close());

/**
 * The picture of `file` once its ETag is strong: a file on disk changed less than a second ago
 * gets a weak one (its times may not move with a write within the same clock tick), so this polls
 * until the file settles. An object's is strong at once.
 */
function settled(file: string): Promise<ThumbnailAnswer> {
  return vi.waitFor(
    async () => {
      const answer = await thumbnail(t, 'ana', file, SIZE);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ETag')).toMatch(/^"[0-9a-f]{32}"$/);
      return answer;
    },
    { timeout: 10_000, interval: 100 },
  );
}

/** Expects a 304: no body, and the headers the picture itself carries. */
function expectNotModified(answer: ThumbnailAnswer, current: ThumbnailAnswer): void {
  expect(answer.status).toBe(304);
  expect(answer.bytes.length).toBe(0);
  expect(answer.headers.get('ETag')).toBe(current.headers.get('ETag'));
  expect(answer.headers.get('Cache-Control')).toBe('private, no-cache');
}

/** Expects the picture itself, a 200. */
function expectPicture(answer: ThumbnailAnswer, current: ThumbnailAnswer): void {
  expect(answer.status).toBe(200);
  expect(answer.headers.get('Content-Type')).toBe('image/webp');
  expect(answer.bytes.equals(current.bytes)).toBe(true);
}

describe('files.thumbnail under conditional requests', () => {
  it('answers If-None-Match with 304 for its ETag (weak, in a list, or *), and with the picture for a stale one', async () => {
    await upload(t, 'ana', 'match.png', await picture(300, 200));
    const current = await settled('match.png');
    const etag = current.headers.get('ETag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"stale", W/${etag}`, '*'])
      expectNotModified(await thumbnail(t, 'ana', 'match.png', SIZE, { 'If-None-Match': ifNoneMatch }), current);
    for (const stale of ['"stale"', 'W/"stale"', `"${etag.slice(2)}`])
      expectPicture(await thumbnail(t, 'ana', 'match.png', SIZE, { 'If-None-Match': stale }), current);
    // Another size is another picture, with a tag of its own.
    expect((await thumbnail(t, 'ana', 'match.png', { size: 128 }, { 'If-None-Match': etag })).status).toBe(200);
  });

  it('sends the file’s Last-Modified, and answers If-Modified-Since with 304 only without an If-None-Match that fails', async () => {
    await upload(t, 'ana', 'dated.png', await picture(200, 200));
    const current = await settled('dated.png');
    const lastModified = current.headers.get('Last-Modified')!;
    const download = await t.api('GET', '/api/files/download', { username: 'ana', file: 'dated.png' });
    expect(lastModified).toBe(download.headers.get('Last-Modified'));
    const later = new Date(Date.parse(lastModified) + 3_600_000).toUTCString();
    const earlier = new Date(Date.parse(lastModified) - 3_600_000).toUTCString();
    for (const since of [lastModified, later])
      expectNotModified(await thumbnail(t, 'ana', 'dated.png', SIZE, { 'If-Modified-Since': since }), current);
    expectPicture(await thumbnail(t, 'ana', 'dated.png', SIZE, { 'If-Modified-Since': earlier }), current);
    expectPicture(await thumbnail(t, 'ana', 'dated.png', SIZE, { 'If-None-Match': '"stale"', 'If-Modified-Since': later }), current);
  });

  it('answers If-Match and If-Unmodified-Since with 412 once they name another picture, and the picture while they hold', async () => {
    await upload(t, 'ana', 'guarded.png', await picture(150, 150));
    const current = await settled('guarded.png');
    const etag = current.headers.get('ETag')!;
    for (const ifMatch of [etag, `"other", ${etag}`, '*'])
      expectPicture(await thumbnail(t, 'ana', 'guarded.png', SIZE, { 'If-Match': ifMatch }), current);
    const ask = (headers: Record<string, string>) =>
      t.api('GET', '/api/files/thumbnail', { username: 'ana', file: 'guarded.png', size: '64' }, { headers });
    expectErrorBody(await ask({ 'If-Match': '"other"' }), 412, 'precondition_failed');
    expectErrorBody(await ask({ 'If-Match': `W/${etag}` }), 412, 'precondition_failed');
    const earlier = new Date(Date.parse(current.headers.get('Last-Modified')!) - 3_600_000).toUTCString();
    expectErrorBody(await ask({ 'If-Unmodified-Since': earlier }), 412, 'precondition_failed');
  });
});

// Files written by another program in the storage folder: only an embedded daemon has one.
onDisk(() => {
  describe('files.thumbnail of a file changed on disk less than a second ago', () => {
    const onDiskPath = (file: string) => path.join(t.storageDir, 'ana', file);
    // An answer within the second after a write may take a few tries on a loaded machine: room for them.
    const LOADED_MACHINE_MS = 60_000;

    it(
      'names its picture by a weak ETag, which no longer matches once the file settles',
      async () => {
        const file = onDiskPath('fresh.png');
        const bytes = await picture(80, 80, 'png', 250);
        await writeFile(file, bytes);
        await vi.waitFor(async () => expect((await thumbnail(t, 'ana', 'fresh.png', SIZE)).status).toBe(200));
        // Written and asked again until an answer comes within the second (a loaded machine may miss it a few times).
        const weak = await vi.waitFor(
          async () => {
            await writeFile(file, bytes);
            const answer = await thumbnail(t, 'ana', 'fresh.png', SIZE);
            expect(answer.status).toBe(200);
            expect(answer.headers.get('ETag')).toMatch(/^W\/"[0-9a-f]{32}"$/);
            return answer;
          },
          { timeout: 30_000, interval: 50 },
        );
        const current = await settled('fresh.png');
        expect(current.headers.get('ETag')!.slice(1)).not.toBe(weak.headers.get('ETag')!.slice(3));
        expectPicture(await thumbnail(t, 'ana', 'fresh.png', SIZE, { 'If-None-Match': weak.headers.get('ETag')! }), current);
      },
      LOADED_MACHINE_MS,
    );

    it(
      'keeps no picture of the bytes before a rewrite in place that left every field of its stat as it was',
      async () => {
        const file = onDiskPath('mapped.png');
        const [old, now] = [await picture(60, 60, 'png', 250), await picture(60, 60, 'png', 10)];
        expect(now.length).toBe(old.length);
        await writeFile(file, old);
        await vi.waitFor(async () => expect((await thumbnail(t, 'ana', 'mapped.png', SIZE)).status).toBe(200));
        // A program that writes through a shared mapping moves the file's times at its first write
        // only. Planted until it holds: the old picture asked within the second after that first
        // write (the daemon's settling time), then new bytes under the very same inode, size and
        // times (a slow answer, or a page the kernel wrote back meanwhile: another try).
        let writer: MappedWriter | null = null;
        try {
          await vi.waitFor(
            async () => {
              await writer?.close();
              writer = mappedWriter(file);
              await writer.write(old);
              const before = await stat(file, { bigint: true });
              const first = await thumbnail(t, 'ana', 'mapped.png', SIZE);
              expect(await redOf(first.bytes)).toBeGreaterThan(200);
              expect(Date.now() - Number(before.ctimeNs / 1_000_000n)).toBeLessThan(1000);
              await writer.write(now);
              const after = await stat(file, { bigint: true });
              expect([after.ino, after.size, after.mtimeNs, after.ctimeNs]).toEqual([
                before.ino,
                before.size,
                before.mtimeNs,
                before.ctimeNs,
              ]);
            },
            { timeout: 30_000, interval: 100 },
          );
          // Once the file settles, its picture is the new one: the cache kept nothing of the old.
          expect(await redOf((await settled('mapped.png')).bytes)).toBeLessThan(60);
        } finally {
          await (writer as MappedWriter | null)?.close();
        }
      },
      LOADED_MACHINE_MS,
    );
  });
});
