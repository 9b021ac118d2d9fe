/**
 * Versions (issue 27, docs/versions.md): an upload that replaces a file keeps what it replaced,
 * the owner lists, reads and restores them, the rules (N per file, D days) hold, versions count
 * against the quota and give way to an upload first, and they follow their file. Black-box over
 * a real port, on disk and in object mode (PostgreSQL + S3: the replaced object is the version).
 */
import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { create } from '../helpers/tus.js';
import { embeddedRun, onDisk } from '../helpers/backend.js';

describe('file versions', () => {
  let t: TestDaemon;
  let n = 0;
  const versionsOf = async (file: string, folder?: string) =>
    (await api(t, 'files.versions', { username: 'ana', file, folder })).body.versions;
  const contentOf = async (file: string, folder?: string) => (await api(t, 'files.download', { username: 'ana', file, folder })).text;
  const put = (file: string, body: string, folder?: string) =>
    upload(t, 'ana', file, body, { overwrite: 'true', ...(folder ? { folder } : {}) });

  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_VERSIONS_KEEP: '3' } });
    await createUser(t, 'ana');
  });
  afterAll(() => t.close());

  it('keeps what an overwrite replaced, newest first, and serves each version’s bytes', async () => {
    const file = `doc${++n}.txt`;
    await upload(t, 'ana', file, 'first draft');
    expect(await versionsOf(file)).toEqual([]);
    await put(file, 'second draft');
    await put(file, 'final');
    const versions = await versionsOf(file);
    expect(versions.map((v) => v.size)).toEqual(['second draft'.length, 'first draft'.length]);
    const bytes = await Promise.all(versions.map((v) => api(t, 'files.versions.download', { username: 'ana', file, id: v.id })));
    expect(bytes.map((b) => b.text)).toEqual(['second draft', 'first draft']);
    expect(bytes[0].headers.get('Content-Disposition')).toMatch(/^attachment;/);
    expect(await contentOf(file)).toBe('final');
  });

  it('restores a version as the file’s content, keeping what it replaces as a version', async () => {
    const file = `doc${++n}.txt`;
    await upload(t, 'ana', file, 'yesterday');
    await put(file, 'today, broken');
    const [yesterday] = await versionsOf(file);
    const restored = await api(t, 'files.versions.restore', { username: 'ana', file, id: yesterday.id });
    expect(restored.status, restored.text).toBe(201);
    expect(restored.body.file.size).toBe('yesterday'.length);
    expect(await contentOf(file)).toBe('yesterday');
    const sizes = (await versionsOf(file)).map((v) => v.size);
    expect(sizes).toEqual(['today, broken'.length, 'yesterday'.length]);
  });

  it('keeps the newest N per file (here 3), dropping the bytes of the rest', async () => {
    const file = `doc${++n}.txt`;
    await upload(t, 'ana', file, 'v0');
    for (let i = 1; i <= 6; i++) await put(file, `v${i}`);
    const versions = await versionsOf(file);
    expect(versions).toHaveLength(3);
    const texts = await Promise.all(
      versions.map(async (v) => (await api(t, 'files.versions.download', { username: 'ana', file, id: v.id })).text),
    );
    expect(texts).toEqual(['v5', 'v4', 'v3']);
    if (embeddedRun) {
      const kept = await readdir(path.join(t.dataDir, 'versions', 'ana'));
      for (const v of versions) expect(kept).toContain(v.id);
    }
  });

  it('follows its file through a rename and a move, and goes with it when it is deleted', async () => {
    const file = `doc${++n}.txt`;
    await upload(t, 'ana', file, 'one');
    await put(file, 'two');
    await api(t, 'files.rename', { username: 'ana', file, newname: `renamed-${file}` });
    expect(await versionsOf(`renamed-${file}`)).toHaveLength(1);
    await api(t, 'folders.create', { username: 'ana', folder: `box${n}` });
    await api(t, 'files.move', { username: 'ana', file: `renamed-${file}`, to: `box${n}` });
    expect(await versionsOf(`renamed-${file}`, `box${n}`)).toHaveLength(1);
    await api(t, 'folders.rename', { username: 'ana', folder: `box${n}`, newname: `crate${n}` });
    const [kept] = await versionsOf(`renamed-${file}`, `crate${n}`);
    expect(
      (await api(t, 'files.versions.download', { username: 'ana', file: `renamed-${file}`, folder: `crate${n}`, id: kept.id })).text,
    ).toBe('one');
    await api(t, 'files.delete', { username: 'ana', file: `renamed-${file}`, folder: `crate${n}` });
    // A new file of that name starts with no history.
    await upload(t, 'ana', `renamed-${file}`, 'new', { folder: `crate${n}` });
    expect(await versionsOf(`renamed-${file}`, `crate${n}`)).toEqual([]);
  });

  it('counts versions against the quota, and drops the oldest first rather than refuse an upload', async () => {
    await createUser(t, 'bo');
    await api(t, 'role.create', { name: 'one-mib', maxStorage: 1, badge: 'https://example.com/b.png' });
    await api(t, 'user.role', { username: 'bo', name: 'one-mib' });
    const kib = (k: number, c: string) => c.repeat(k * 1024);
    await upload(t, 'bo', 'big.bin', kib(300, 'a'));
    await upload(t, 'bo', 'big.bin', kib(300, 'b'), { overwrite: 'true' });
    await upload(t, 'bo', 'big.bin', kib(300, 'c'), { overwrite: 'true' });
    const usage = async () => (await api(t, 'user.get', { username: 'bo' })).body.usage.usedBytes;
    expect(await usage()).toBe(900 * 1024);
    // 300 KiB more does not fit beside both versions: the oldest ('a') goes, the upload lands.
    const more = await api(t, 'files.upload', { username: 'bo', file: 'other.bin' }, { body: kib(300, 'd') });
    expect(more.status, more.text).toBe(201);
    const left = (await api(t, 'files.versions', { username: 'bo', file: 'big.bin' })).body.versions;
    expect(left).toHaveLength(1);
    expect((await api(t, 'files.versions.download', { username: 'bo', file: 'big.bin', id: left[0].id })).text[0]).toBe('b');
    expect(await usage()).toBe(900 * 1024);
    // 300 KiB more again: the last version ('b') gives way; then, with none left, the quota refuses as before.
    expect((await api(t, 'files.upload', { username: 'bo', file: 'third.bin' }, { body: kib(300, 'e') })).status).toBe(201);
    expect((await api(t, 'files.versions', { username: 'bo', file: 'big.bin' })).body.versions).toEqual([]);
    expect((await api(t, 'files.upload', { username: 'bo', file: 'fourth.bin' }, { body: kib(200, 'f') })).status).toBe(507);
  });

  it('gives way when the quota is held by an upload still streaming, which the daemon’s own count leaves out', async () => {
    await createUser(t, 'cy');
    await api(t, 'role.create', { name: 'one-mib-cy', maxStorage: 1, badge: 'https://example.com/b.png' });
    await api(t, 'user.role', { username: 'cy', name: 'one-mib-cy' });
    const kib = (k: number, c: string) => c.repeat(k * 1024);
    for (const c of 'abc') await upload(t, 'cy', 'big.bin', kib(200, c), { overwrite: 'true' });
    // 600 KiB used (400 of it versions); a 300 KiB body declared and held (it fits), not yet
    // sent. On PostgreSQL that is another daemon's reservation as much as this one's.
    const slow = request(`${t.url}/api/files/upload?username=cy&file=slow.bin`, {
      method: 'POST',
      headers: { 'API-Key': t.key, 'Content-Length': String(300 * 1024) },
    });
    const slowAnswer = new Promise<number>((resolve, reject) => {
      slow.on('response', (res) => (res.resume(), resolve(res.statusCode ?? 0)));
      slow.on('error', reject);
    });
    slow.write(kib(1, 's'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    // 200 KiB fits beside the files and versions, but not beside the held 300 KiB too: the oldest version ('a') gives way.
    const small = await api(t, 'files.upload', { username: 'cy', file: 'small.bin' }, { body: kib(200, 'd') });
    expect(small.status, small.text).toBe(201);
    slow.end(kib(299, 's'));
    expect(await slowAnswer).toBe(201);
    const left = (await api(t, 'files.versions', { username: 'cy', file: 'big.bin' })).body.versions;
    expect(left).toHaveLength(1);
    expect((await api(t, 'files.versions.download', { username: 'cy', file: 'big.bin', id: left[0].id })).text[0]).toBe('b');
  });

  it('keeps a version of a WebDAV PUT over a file too', async () => {
    const file = `dav${++n}.txt`;
    await upload(t, 'ana', file, 'before the mount');
    const basic = `Basic ${Buffer.from('ana:password123').toString('base64')}`;
    const res = await t.raw('PUT', `/dav/ana/${file}`, { key: null, headers: { Authorization: basic }, body: 'written by Finder' });
    expect([201, 204]).toContain(res.status);
    const [kept] = await versionsOf(file);
    expect((await api(t, 'files.versions.download', { username: 'ana', file, id: kept.id })).text).toBe('before the mount');
  });

  onDisk(() => {
    it('keeps a version of a tus upload onto a name too (creation with upload)', async () => {
      const file = `tus${++n}.txt`;
      await upload(t, 'ana', file, 'before the resumable upload');
      const body = Buffer.from('after it');
      const res = await create(t, { username: 'ana', filename: file, overwrite: 'true' }, body.length, body);
      expect(res.status, res.text).toBe(201);
      expect(await contentOf(file)).toBe('after it');
      const [kept] = await versionsOf(file);
      expect((await api(t, 'files.versions.download', { username: 'ana', file, id: kept.id })).text).toBe('before the resumable upload');
    });
  });

  it('answers 404 for another file’s version id, and for a version id of nothing', async () => {
    const a = `a${++n}.txt`;
    await upload(t, 'ana', a, '1');
    await put(a, '2');
    const [v] = await versionsOf(a);
    await upload(t, 'ana', `b${n}.txt`, 'x');
    const other = await api(t, 'files.versions.download', { username: 'ana', file: `b${n}.txt`, id: v.id });
    expect(other.status).toBe(404);
    expect((other.body as unknown as { code: string }).code).toBe('version_not_found');
    const none = await t.raw('POST', `/api/files/versions/restore?username=ana&file=${a}&id=${'f'.repeat(32)}`);
    expect(none.body.code).toBe('version_not_found');
  });
});
