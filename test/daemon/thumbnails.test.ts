/**
 * files.thumbnail (docs/explorer.md "Previews and thumbnails"): WebP pictures made with
 * sharp, cached outside the storage folder under a key no changed file can share, 415 for
 * what must not or cannot be rendered, and only ever the caller's own files.
 */
import { mkdir, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ThumbnailCache } from '../../daemon/services/thumbnail-cache.js';
import { renderProbe, sniffRaster } from '../../daemon/services/thumbnail-render.js';
import { renderCounts } from '../../daemon/services/thumbnails.js';
import { api, apiLoose, signIn } from '../helpers/api.js';
import { onDisk } from '../helpers/backend.js';
import { createUser, listTree, snapshotState, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { picture, thumbnail, untilSettled } from '../helpers/thumbnails.js';

/** A PNG whose header claims `width`×`height` (a decompression bomb: the header is all it takes). */
function pngHeaderClaiming(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="file:///etc/passwd"/></svg>';

let t: TestDaemon;
const cacheDir = () => path.join(t.dataDir, 'cache', 'thumbnails');
const renders = () => renderCounts.get(cacheDir()) ?? 0;
/** The pictures in the cache, as paths below it. */
const cached = async () => (await listTree(cacheDir())).filter((p) => p.endsWith('.webp'));

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
  await createUser(t, 'bob');
});
afterAll(() => t.close());

const thumbBytes = (username: string, file: string, extra: { size?: number; folder?: string } = {}, headers: Record<string, string> = {}) =>
  thumbnail(t, username, file, extra, headers);

describe('GET /api/files/thumbnail', () => {
  it('answers a WebP whose longest edge is the size asked, with an ETag and private revalidation', async () => {
    await upload(t, 'ana', 'wide.png', await picture(1000, 500));
    await untilSettled(t, 'ana', 'wide.png');
    const res = await thumbBytes('ana', 'wide.png', { size: 128 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    const meta = await sharp(res.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 128, 64]);
  });

  it('is 256 by default, never enlarges a small picture, and reads JPEG, WebP and GIF in folders too', async () => {
    await upload(t, 'ana', 'tall.jpg', await picture(300, 600, 'jpeg'));
    expect(await sharp((await thumbBytes('ana', 'tall.jpg')).bytes).metadata()).toMatchObject({ width: 128, height: 256 });
    await upload(t, 'ana', 'tiny.webp', await picture(40, 20, 'webp'));
    expect(await sharp((await thumbBytes('ana', 'tiny.webp', { size: 512 })).bytes).metadata()).toMatchObject({ width: 40, height: 20 });
    await api(t, 'folders.create', { username: 'ana', folder: 'pics' });
    await upload(t, 'ana', 'anim.gif', await picture(100, 100, 'gif'), { folder: 'pics' });
    const res = await thumbBytes('ana', 'anim.gif', { folder: 'pics', size: 64 });
    expect(res.status).toBe(200);
    expect(await sharp(res.bytes).metadata()).toMatchObject({ format: 'webp', width: 64, height: 64 });
  });

  it('turns a photo the way its EXIF orientation says', async () => {
    // Stored 200×100, shown rotated a quarter turn (orientation 6), as cameras do.
    const photo = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#c33' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    await upload(t, 'ana', 'turned.jpg', photo);
    expect(await sharp((await thumbBytes('ana', 'turned.jpg', { size: 64 })).bytes).metadata()).toMatchObject({ width: 32, height: 64 });
  });

  it('decides by the bytes, not the name: a PNG called .dat gets a picture', async () => {
    await upload(t, 'ana', 'scan.dat', await picture(80, 80));
    expect((await thumbBytes('ana', 'scan.dat', { size: 64 })).status).toBe(200);
  });

  it.each([
    ['text', 'notes.txt', Buffer.from('just words, no picture\n')],
    ['an SVG', 'logo.svg', Buffer.from(SVG)],
    ['an SVG named like a PNG', 'logo.png', Buffer.from(SVG)],
    ['an SVG behind an XML declaration', 'decl.png', Buffer.from(`<?xml version="1.0"?>${SVG}`)],
    [
      'a corrupt PNG (its signature, then noise)',
      'broken.png',
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(300, 7)]),
    ],
    ['a truncated PNG', 'cut.png', null],
    ['a PNG claiming 100,000 × 100,000 pixels (decompression bomb)', 'bomb.png', pngHeaderClaiming(100_000, 100_000)],
    ['a PNG just over 100 megapixels', 'big.png', pngHeaderClaiming(10_001, 10_000)],
    ['a PDF', 'doc.pdf', Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n')],
    ['an empty file', 'empty.png', Buffer.alloc(0)],
  ])('is 415 cannot_preview for %s, and keeps nothing', async (_what, name, content) => {
    const bytes = content ?? (await picture(400, 400)).subarray(0, 200);
    await upload(t, 'bob', name, bytes);
    const before = await cached();
    const res = await apiLoose(t, 'files.thumbnail', { username: 'bob', file: name });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('cannot_preview');
    expect(await cached()).toEqual(before);
  });

  it('refuses sizes outside 64–512 with a 400, before any work', async () => {
    await upload(t, 'ana', 'sizes.png', await picture(100, 100));
    const before = renders();
    for (const size of ['63', '513', '0', '-1', '1e2', 'abc', '256.5', ' 128', '0128']) {
      const res = await apiLoose(t, 'files.thumbnail', { username: 'ana', file: 'sizes.png', size });
      expect(res.status, size).toBe(400);
    }
    expect(renders()).toBe(before);
  });

  it('is 404 for a missing file, folder or user', async () => {
    for (const params of [
      { username: 'ana', file: 'nope.png' },
      { username: 'ana', file: 'wide.png', folder: 'nofolder' },
      { username: 'nobody', file: 'wide.png' },
    ]) {
      const res = await apiLoose(t, 'files.thumbnail', params);
      expect(res.status, JSON.stringify(params)).toBe(404);
    }
  });

  it('serves a kept picture without rendering again, and answers a current ETag with 304', async () => {
    await upload(t, 'ana', 'again.png', await picture(500, 500));
    // A picture is kept once its file has settled (thumbnails.ts, pictureOf).
    await untilSettled(t, 'ana', 'again.png');
    const first = await thumbBytes('ana', 'again.png', { size: 100 });
    const count = renders();
    const second = await thumbBytes('ana', 'again.png', { size: 100 });
    expect(renders()).toBe(count);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    const revalidated = await thumbBytes('ana', 'again.png', { size: 100 }, { 'If-None-Match': first.headers.get('etag')! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.bytes.length).toBe(0);
    expect(renders()).toBe(count);
    // Another size is another picture.
    const other = await thumbBytes('ana', 'again.png', { size: 64 });
    expect(other.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(renders()).toBe(count + 1);
  });

  it('keeps its pictures in <data-dir>/cache/thumbnails, never in the storage folder', async () => {
    await upload(t, 'ana', 'where.png', await picture(90, 90));
    await untilSettled(t, 'ana', 'where.png');
    const before = await snapshotState(t);
    await thumbBytes('ana', 'where.png', { size: 64 });
    expect((await snapshotState(t)).tree).toEqual(before.tree);
    expect((await cached()).length).toBeGreaterThan(0);
  });

  it('gives a file overwritten the new picture, never the old, and drops the old one', async () => {
    await upload(t, 'ana', 'swap.png', await picture(200, 100, 'png', 250));
    await untilSettled(t, 'ana', 'swap.png');
    const before = await cached();
    const old = await thumbBytes('ana', 'swap.png', { size: 64 });
    const [oldEntry] = (await cached()).filter((p) => !before.includes(p));
    expect(oldEntry).toBeDefined();
    await upload(t, 'ana', 'swap.png', await picture(100, 200, 'png', 10), { overwrite: 'true' });
    // The old picture is deleted (the index's file.changed)...
    await vi.waitFor(async () => expect(await cached()).not.toContain(oldEntry));
    await untilSettled(t, 'ana', 'swap.png');
    const fresh = await thumbBytes('ana', 'swap.png', { size: 64 });
    expect(fresh.headers.get('etag')).not.toBe(old.headers.get('etag'));
    expect(await sharp(fresh.bytes).metadata()).toMatchObject({ width: 32, height: 64 });
    // ...and the new one takes its place.
    expect((await cached()).filter((p) => !before.includes(p))).toHaveLength(1);
  });

  // Another program rewriting a file in the storage folder: only an embedded daemon has one.
  onDisk(() => {
    it('gives a file changed on disk by another program (same size, same second) a new picture', async () => {
      const file = path.join(t.storageDir, 'ana', 'outside.png');
      await writeFile(file, await picture(60, 60, 'png', 250));
      await vi.waitFor(async () => expect((await thumbBytes('ana', 'outside.png', { size: 64 })).status).toBe(200));
      const before = await thumbBytes('ana', 'outside.png', { size: 64 });
      const stamp = new Date(Date.now() - 5000);
      await utimes(file, stamp, stamp);
      const next = await picture(60, 60, 'png', 10);
      // Same length, and the same mtime put back: only the change time and the bytes differ.
      await writeFile(file, next);
      await utimes(file, stamp, stamp);
      const after = await thumbBytes('ana', 'outside.png', { size: 64 });
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
      const { data } = await sharp(after.bytes).raw().toBuffer({ resolveWithObject: true });
      expect(data[0]).toBeLessThan(60); // the new, dark red
    });
  });

  it('never keeps a picture of the old bytes when the file is overwritten while it renders', async () => {
    await upload(t, 'ana', 'race.png', await picture(120, 120, 'png', 250));
    // Settled, so that the render below is one that would be kept.
    await untilSettled(t, 'ana', 'race.png');
    let reached!: () => void;
    const inWindow = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    renderProbe.afterRead = () => {
      renderProbe.afterRead = null;
      reached();
      return held;
    };
    const pending = thumbBytes('ana', 'race.png', { size: 64 });
    await inWindow; // the old bytes are read; the picture is not kept yet
    await upload(t, 'ana', 'race.png', await picture(120, 120, 'png', 10), { overwrite: 'true' });
    release();
    const old = await pending;
    expect(old.status).toBe(200);
    await untilSettled(t, 'ana', 'race.png');
    const fresh = await thumbBytes('ana', 'race.png', { size: 64 });
    expect(fresh.headers.get('etag')).not.toBe(old.headers.get('etag'));
    const { data } = await sharp(fresh.bytes).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeLessThan(60);
    // Only the new picture is kept for that file.
    const again = renders();
    expect((await thumbBytes('ana', 'race.png', { size: 64 })).headers.get('etag')).toBe(fresh.headers.get('etag'));
    expect(renders()).toBe(again);
  });

  it('drops the pictures of a deleted file', async () => {
    await upload(t, 'ana', 'bye.png', await picture(70, 70));
    await untilSettled(t, 'ana', 'bye.png');
    const before = await cached();
    await thumbBytes('ana', 'bye.png', { size: 64 });
    const added = (await cached()).filter((p) => !before.includes(p));
    expect(added).toHaveLength(1);
    await api(t, 'files.delete', { username: 'ana', file: 'bye.png', permanent: true });
    await vi.waitFor(async () => expect(await cached()).not.toContain(added[0]));
  });

  it('renders at most two pictures at once', async () => {
    renderProbe.peak = 0;
    const names = ['p1.png', 'p2.png', 'p3.png', 'p4.png', 'p5.png', 'p6.png'];
    for (const [i, name] of names.entries()) await upload(t, 'bob', name, await picture(900 + i, 700));
    const answers = await Promise.all(names.map((name) => thumbBytes('bob', name, { size: 200 })));
    expect(answers.map((a) => a.status)).toEqual(names.map(() => 200));
    expect(renderProbe.peak).toBeGreaterThan(0);
    expect(renderProbe.peak).toBeLessThanOrEqual(2);
  });

  // A symlink another program puts in the storage folder: only an embedded daemon has one.
  onDisk(() => {
    it('follows no symlink put in the storage folder', async () => {
      const outside = path.join(os.tmpdir(), `nimbus-thumb-secret-${process.pid}.png`);
      await writeFile(outside, await picture(50, 50));
      await symlink(outside, path.join(t.storageDir, 'bob', 'link.png'));
      const res = await apiLoose(t, 'files.thumbnail', { username: 'bob', file: 'link.png' });
      expect(res.status).toBe(404);
    });
  });
});

describe('files.thumbnail with a cache that cannot be written', () => {
  it('still answers the picture, and says why it was not kept', async () => {
    const broken = await startTestDaemon();
    try {
      // A file where the cache directory should be: every write fails (root ignores modes, a file does not).
      await mkdir(path.join(broken.dataDir, 'cache'), { recursive: true });
      await writeFile(path.join(broken.dataDir, 'cache', 'thumbnails'), 'not a directory');
      await createUser(broken, 'ana');
      await upload(broken, 'ana', 'a.png', await picture(100, 100));
      await untilSettled(broken, 'ana', 'a.png');
      const res = await api(broken, 'files.thumbnail', { username: 'ana', file: 'a.png', size: 64 });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect(broken.logs.join('\n')).toContain('a thumbnail was not kept');
    } finally {
      await broken.close();
    }
  });
});

describe('files.thumbnail for a signed-in user', () => {
  it('answers their own files and 404 for another user’s, as for a user that does not exist', async () => {
    await upload(t, 'ana', 'mine.png', await picture(80, 80));
    await upload(t, 'bob', 'bobs.png', await picture(80, 80));
    const bob = await signIn(t, 'bob');
    const own = await api(t, 'files.thumbnail', { username: 'bob', file: 'bobs.png', size: 64 }, { key: null, headers: bob.headers });
    expect(own.status).toBe(200);
    const before = renders();
    const other = await apiLoose(t, 'files.thumbnail', { username: 'ana', file: 'mine.png' }, { key: null, headers: bob.headers });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('user_not_found');
    expect(renders()).toBe(before);
  });
});

describe('ThumbnailCache', () => {
  let root: string;
  beforeAll(async () => {
    root = path.join(t.dataDir, 'unit-cache');
    await mkdir(root, { recursive: true });
  });

  it('deletes the least recently used pictures once over its cap', async () => {
    // Three pictures fit; a fourth passes the cap, and eviction goes down to 90 % of it (3150 bytes).
    const cache = new ThumbnailCache(root, 3500);
    await cache.ready();
    const source = (file: string) => ({ username: 'u', folder: null, file });
    const entries: string[] = [];
    for (const [i, name] of ['a', 'b', 'c'].entries()) {
      const entry = cache.entryPath(source(name), `k${name}`);
      await cache.write(source(name), entry, Buffer.alloc(1000, i), cache.generation(source(name)));
      const stamp = new Date(Date.now() - (10 - i) * 60_000);
      await utimes(entry, stamp, stamp);
      entries.push(entry);
    }
    // Reading `a` makes it the most recently used: `b` is now the oldest.
    expect(await cache.read(entries[0])).not.toBeNull();
    const d = cache.entryPath(source('d'), 'kd');
    await cache.write(source('d'), d, Buffer.alloc(1000, 9), cache.generation(source('d')));
    expect(await cache.read(entries[1])).toBeNull();
    for (const kept of [entries[0], entries[2], d]) expect(await cache.read(kept)).not.toBeNull();
  });

  it('removes the half-written pictures a crash left when it starts, and nothing else', async () => {
    const dir = path.join(root, 'crashed');
    await mkdir(path.join(dir, 'kept'), { recursive: true });
    await writeFile(path.join(dir, '.tmp-0123456789abcdef'), Buffer.alloc(5000));
    await writeFile(path.join(dir, 'kept', 'note'), 'not the cache’s');
    const cache = new ThumbnailCache(dir, 1 << 20);
    await cache.ready();
    expect((await readdir(dir)).sort()).toEqual(['kept']);
    expect(await readdir(path.join(dir, 'kept'))).toEqual(['note']);
  });

  it('keeps nothing rendered before its source changed', async () => {
    const listeners: ((e: { type: string; username: string | null; folder: string | null; file: string | null }) => void)[] = [];
    const cache = new ThumbnailCache(path.join(root, 'gen'), 1 << 20, { on: (_e, l) => listeners.push(l as never) });
    const source = { username: 'u', folder: 'f', file: 'x.png' };
    const generation = cache.generation(source);
    listeners.forEach((l) => l({ type: 'folder.removed', username: 'u', folder: 'f', file: null }));
    const entry = cache.entryPath(source, 'k');
    await cache.write(source, entry, Buffer.from('old'), generation);
    expect(await cache.read(entry)).toBeNull();
    expect(await readdir(path.join(root, 'gen')).catch(() => [])).not.toContainEqual(expect.stringMatching(/^\.tmp-/));
  });
});

describe('sniffRaster', () => {
  it('knows raster images by their first bytes and nothing else', async () => {
    for (const format of ['png', 'jpeg', 'webp', 'gif'] as const) expect(sniffRaster(await picture(4, 4, format)), format).toBe(true);
    for (const text of [SVG, `<?xml version="1.0"?>${SVG}`, '%PDF-1.4 xxxxxxxx', '<html><body></body></html>', ''])
      expect(sniffRaster(Buffer.from(text)), text).toBe(false);
  });
});
