/**
 * folders.download (docs/explorer.md, "Zips"): a real daemon zips what was uploaded, and a
 * real unzip (Debian's `unzip -t`, Python's zipfile) reads it back byte for byte. The races
 * (a file removed or swapped for a link while the zip streams, a client that leaves) are
 * played in the window where they matter: with the first entry still streaming.
 */
import { mkdtemp, readdir, readFile, readlink, rm, stat, symlink, truncate, unlink, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENDPOINT_BY_ID, requestTarget } from '../../shared/endpoints.js';
import { api, apiLoose } from '../helpers/api.js';
import { call, makeUser, userSession } from '../helpers/accounts.js';
import { childEnv, spawnDaemon } from '../helpers/child.js';
import { onDisk } from '../helpers/backend.js';
import { openPathsUnder } from '../helpers/open-fds.js';
import { createUser, snapshotState, startTestDaemon, TEST_KEY, upload, type TestDaemon } from '../helpers/daemon.js';
import { readZip, saveSparse, sha256, testBigZip, type ZipEntryInfo } from '../helpers/zip.js';

let t: TestDaemon;
let n = 0;
const unique = (prefix: string) => `${prefix}${++n}`;

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(async () => {
  await t.close();
});

interface ZipAnswer {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** GET /api/folders/download with the admin key; `files` as the row reads it (names joined by `/`). */
async function download(params: Record<string, string>, init: RequestInit = {}): Promise<ZipAnswer> {
  const res = await fetch(`${t.url}/api/folders/download?${new URLSearchParams(params)}`, {
    ...init,
    headers: { 'API-Key': t.key, ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Entries as `name → {method, sha256}`, the way a test compares them with what it uploaded. */
const byName = (entries: ZipEntryInfo[]) => Object.fromEntries(entries.map((e) => [e.name, { method: e.method, sha256: e.sha256 }]));

const STORED = 0;
const DEFLATED = 8;
const GIB = 1 << 30;

/** A user with a root file, a folder of three kinds of file, and an empty folder. */
async function userWithFiles(): Promise<{ username: string; content: Record<string, Buffer> }> {
  const username = unique('zipper');
  await createUser(t, username);
  const content: Record<string, Buffer> = {
    'notes.txt': Buffer.from('first line\n'.repeat(500)),
    'photos/cat.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, ...Array.from({ length: 4000 }, (_, i) => (i * 7) % 256)]),
    'photos/data.json': Buffer.from(JSON.stringify({ a: 1, list: Array.from({ length: 200 }, (_, i) => i) })),
    'photos/blob.bin': Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31) % 256)),
  };
  await api(t, 'folders.create', { username, folder: 'photos' });
  await api(t, 'folders.create', { username, folder: 'empty' });
  for (const [where, bytes] of Object.entries(content)) {
    const [folder, file] = where.includes('/') ? where.split('/') : [undefined, where];
    await upload(t, username, file, bytes, folder ? { folder } : {});
  }
  return { username, content };
}

describe('what a zip holds', () => {
  it('zips the whole storage: root files, every folder as a directory (an empty one too), named username.zip', async () => {
    const { username, content } = await userWithFiles();
    const res = await download({ username });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/zip');
    expect(res.headers.get('Content-Disposition')).toBe(`attachment; filename="${username}.zip"; filename*=UTF-8''${username}.zip`);
    const entries = await readZip(res.bytes);
    expect(entries.map((e) => e.name).sort()).toEqual([
      'empty/',
      'notes.txt',
      'photos/',
      'photos/blob.bin',
      'photos/cat.png',
      'photos/data.json',
    ]);
    const got = byName(entries);
    for (const [name, bytes] of Object.entries(content)) expect(got[name].sha256, name).toBe(sha256(bytes));
    // Text-like types are deflated; everything else is stored as it is.
    expect(got['notes.txt'].method).toBe(DEFLATED);
    expect(got['photos/data.json'].method).toBe(DEFLATED);
    expect(got['photos/cat.png'].method).toBe(STORED);
    expect(got['photos/blob.bin'].method).toBe(STORED);
  });

  it('zips one folder under its name, named folder.zip', async () => {
    const { username, content } = await userWithFiles();
    const res = await download({ username, folder: 'photos' });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Disposition')).toMatch(/^attachment; filename="photos\.zip"/);
    const entries = await readZip(res.bytes);
    expect(entries.map((e) => e.name).sort()).toEqual(['photos/', 'photos/blob.bin', 'photos/cat.png', 'photos/data.json']);
    expect(byName(entries)['photos/cat.png'].sha256).toBe(sha256(content['photos/cat.png']));
  });

  it('zips only the files named, at the top of the zip: folder.zip from a folder, files.zip from the root', async () => {
    const { username, content } = await userWithFiles();
    const some = await download({ username, folder: 'photos', files: 'cat.png/data.json' });
    expect(some.status).toBe(200);
    expect(some.headers.get('Content-Disposition')).toMatch(/^attachment; filename="photos\.zip"/);
    const entries = await readZip(some.bytes);
    expect(entries.map((e) => e.name).sort()).toEqual(['cat.png', 'data.json']);
    expect(byName(entries)['data.json'].sha256).toBe(sha256(content['photos/data.json']));

    const root = await download({ username, files: 'notes.txt' });
    expect(root.headers.get('Content-Disposition')).toMatch(/^attachment; filename="files\.zip"/);
    expect((await readZip(root.bytes)).map((e) => e.name)).toEqual(['notes.txt']);
  });

  it('keeps non-ASCII names intact: UTF-8 entries and an RFC 5987 filename*', async () => {
    const username = unique('nonascii');
    await createUser(t, username);
    const folder = 'Fotky 2024 čšž';
    await api(t, 'folders.create', { username, folder });
    await upload(t, username, '日本語のメモ.txt', 'こんにちは', { folder });
    await upload(t, username, "Ñandú 'quoted' %20 (1).png", Buffer.from([1, 2, 3]), { folder });
    const res = await download({ username, folder });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Disposition')).toBe(
      `attachment; filename="Fotky 2024 ___.zip"; filename*=UTF-8''${encodeURIComponent(`${folder}.zip`)}`,
    );
    const entries = await readZip(res.bytes);
    expect(entries.map((e) => e.name).sort()).toEqual(
      [`${folder}/`, `${folder}/Ñandú 'quoted' %20 (1).png`, `${folder}/日本語のメモ.txt`].sort(),
    );
    expect(entries.every((e) => e.utf8)).toBe(true);
    expect(entries.find((e) => e.name.endsWith('.txt'))?.sha256).toBe(sha256('こんにちは'));
  });

  it('zips an empty folder as its directory alone, and an empty storage as an empty zip', async () => {
    const username = unique('empty');
    await createUser(t, username);
    expect(await readZip((await download({ username })).bytes)).toEqual([]);
    await api(t, 'folders.create', { username, folder: 'nothing' });
    expect((await readZip((await download({ username, folder: 'nothing' })).bytes)).map((e) => e.name)).toEqual(['nothing/']);
  });

  it('keeps an empty file as an empty entry', async () => {
    const username = unique('zero');
    await createUser(t, username);
    await upload(t, username, 'zero.bin', Buffer.alloc(0));
    const entries = await readZip((await download({ username })).bytes);
    expect(entries).toMatchObject([{ name: 'zero.bin', size: 0 }]);
  });

  it('answers a HEAD with the headers, and no file is read', async () => {
    const { username } = await userWithFiles();
    const res = await fetch(`${t.url}/api/folders/download?username=${username}`, { method: 'HEAD', headers: { 'API-Key': t.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/zip');
    expect(res.headers.get('Content-Disposition')).toMatch(/^attachment;/);
  });
});

describe('who may zip what, and bad input', () => {
  it('lets a signed-in user zip their own storage, and answers 404 for another user’s folder as for no user', async () => {
    const mine = unique('self');
    const other = unique('other');
    const cookie = await userSession(t, mine);
    await makeUser(t, other);
    await api(t, 'folders.create', { username: other, folder: 'secret' });
    await upload(t, other, 'plans.txt', 'do not share', { folder: 'secret' });
    await upload(t, mine, 'own.txt', 'my own');

    const own = await call(t, '/api/folders/download', { cookie, query: { username: mine } });
    expect(own.status).toBe(200);
    expect(own.headers['content-type']).toBe('application/zip');

    const theirs = await call(t, '/api/folders/download', { cookie, query: { username: other, folder: 'secret' } });
    const nobody = await call(t, '/api/folders/download', { cookie, query: { username: 'nobody-at-all', folder: 'secret' } });
    expect([theirs.status, theirs.body.code]).toEqual([404, 'user_not_found']);
    expect([nobody.status, nobody.body.code]).toEqual([404, 'user_not_found']);
    expect(theirs.text).not.toContain('do not share');
  });

  it('answers 404 before any byte for a missing folder or a missing named file, and 400 for bad names', async () => {
    const { username } = await userWithFiles();
    const before = await snapshotState(t);
    const missingFolder = await apiLoose(t, 'folders.download', { username, folder: 'nope' });
    expect([missingFolder.status, missingFolder.body.code]).toEqual([404, 'folder_not_found']);
    const missingFile = await apiLoose(t, 'folders.download', { username, folder: 'photos', files: 'cat.png/gone.png' });
    expect([missingFile.status, missingFile.body.code]).toEqual([404, 'file_not_found']);
    // A folder named as a file is not one of the files.
    const folderAsFile = await apiLoose(t, 'folders.download', { username, files: 'photos' });
    expect([folderAsFile.status, folderAsFile.body.code]).toEqual([404, 'file_not_found']);
    // (An empty `files` or `folder` is left out, as every optional parameter is: the whole storage.)
    for (const files of ['a.txt//b.txt', '/a.txt', '../notes.txt', 'a.txt/a.txt', '..', 'x\\y', 'nul\u0000.txt']) {
      const res = await apiLoose(t, 'folders.download', { username, files });
      expect(res.status, files).toBe(400);
    }
    for (const folder of ['..', 'a//b', 'CON'])
      expect((await apiLoose(t, 'folders.download', { username, folder })).status, folder).toBe(400);
    const tooMany = Array.from({ length: 1001 }, (_, i) => `f${i}`).join('/');
    expect((await apiLoose(t, 'folders.download', { username, files: tooMany })).status).toBe(400);
    expect(await snapshotState(t)).toEqual(before);
  });
});

/** Files this process has open under `dir` (the in-process daemon's), from /proc/self/fd, held directories aside. */
async function openFilesUnder(dir: string): Promise<string[]> {
  return (await openPathsUnder(dir)).filter((target) => target !== dir);
}

/**
 * More than every buffer between the daemon's file and this test's socket (1 MiB reads, a
 * few stream buffers, the loopback socket's few MiB): a zip paused in this entry is still in it.
 */
const BIG = 64 << 20;

/** Starts a zip and stops reading it after the first bytes, while its first entry streams. */
async function startPausedZip(query: string): Promise<{ res: http.IncomingMessage; req: http.ClientRequest; head: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${t.url}/api/folders/download?${query}`, { headers: { 'API-Key': t.key } }, (res) => {
      const head: Buffer[] = [];
      res.once('data', (chunk: Buffer) => {
        head.push(chunk);
        res.pause();
        resolve({ res, req, head });
      });
    });
    req.on('error', reject);
  });
}

/** Reads the rest of a paused answer. */
function readRest(res: http.IncomingMessage, head: Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks = [...head];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
    res.resume();
  });
}

/** A user whose root holds `big.bin` (sparse, 64 MiB unless said) then `last.txt`, both in the index. */
async function userWithBigFirst(bigSize = BIG): Promise<{ username: string; dir: string }> {
  const username = unique('racer');
  await createUser(t, username);
  await upload(t, username, 'last.txt', 'the last file');
  const dir = path.join(t.storageDir, username);
  await writeFile(path.join(dir, 'big.bin'), '');
  await truncate(path.join(dir, 'big.bin'), bigSize);
  await api(t, 'dash.rescan');
  expect((await api(t, 'files.list', { username })).body.files.map((f) => f.name).sort()).toEqual(['big.bin', 'last.txt']);
  return { username, dir };
}

// Files removed, swapped for links and held open in the storage folder while the zip streams,
// with sparse files written there: only an embedded daemon has one.
onDisk(() => {
  describe('races while the zip streams', () => {
    it('leaves out a file removed while an earlier one streams; the zip stays valid', async () => {
      const { username, dir } = await userWithBigFirst();
      const { res, head } = await startPausedZip(`username=${username}&files=big.bin/last.txt`);
      await unlink(path.join(dir, 'last.txt'));
      const entries = await readZip(await readRest(res, head));
      expect(entries.map((e) => [e.name, e.size])).toEqual([['big.bin', BIG]]);
    });

    it('never follows a link swapped in for a file while an earlier one streams', async () => {
      const { username, dir } = await userWithBigFirst();
      const secret = path.join(t.dataDir, 'db.json');
      const { res, head } = await startPausedZip(`username=${username}&files=big.bin/last.txt`);
      await rm(path.join(dir, 'last.txt'));
      await symlink(secret, path.join(dir, 'last.txt'));
      const entries = await readZip(await readRest(res, head));
      expect(entries.map((e) => e.name)).toEqual(['big.bin']);
    });

    it('closes the open file and opens no other when the client leaves mid-zip', async () => {
      const { username, dir } = await userWithBigFirst();
      const { req } = await startPausedZip(`username=${username}&files=big.bin/last.txt`);
      expect(await openFilesUnder(dir)).toEqual([path.join(dir, 'big.bin')]);
      req.destroy();
      await vi.waitFor(async () => expect(await openFilesUnder(dir)).toEqual([]), { timeout: 10_000 });
      // The zip's next step would have opened last.txt right after big.bin closed: it did not.
      expect(await openFilesUnder(dir)).toEqual([]);
      expect((await api(t, 'dash.get')).status).toBe(200);
      // A client that leaves is normal: nothing to log.
      expect(t.logs.filter((line) => /zip|response error/.test(line))).toEqual([]);
    });

    it('reads no further than the client takes: a paused client holds the daemon to a few buffers', async () => {
      const { username, dir } = await userWithBigFirst(256 << 20);
      const { res, head } = await startPausedZip(`username=${username}&files=big.bin`);
      const position = () => readFilePosition(path.join(dir, 'big.bin'));
      // Wait for the reading to settle (the buffers between the file and the socket are full).
      let last = -1;
      await vi.waitFor(
        async () => {
          const now = await position();
          const settled = now === last;
          last = now;
          expect(settled).toBe(true);
        },
        { timeout: 20_000, interval: 200 },
      );
      expect(last).toBeGreaterThan(0);
      expect(last).toBeLessThan(BIG);
      // Then it all comes, once read.
      expect((await readRest(res, head)).length).toBeGreaterThan(256 << 20);
    });
  });
});

// Counts the files the daemon opens in the storage folder: only an embedded daemon has one.
onDisk(() => {
  describe('a slow client and many small files', () => {
    it('reads no file further ahead than the buffers hold: a paused client stops the daemon', { timeout: 120_000 }, async (ctx) => {
      const username = unique('many');
      await createUser(t, username);
      const dir = path.join(t.storageDir, username);
      // Which files the daemon has read shows in their access time (relatime: the first read after
      // an old atime moves it), so each file starts with an atime in the past.
      const OLD = new Date('2020-01-01T00:00:00Z');
      const probe = path.join(dir, 'probe.bin');
      await writeFile(probe, 'x');
      await utimes(probe, OLD, new Date());
      await readFile(probe);
      if ((await stat(probe)).atimeMs === OLD.getTime()) ctx.skip(); // a noatime mount cannot show reads
      await rm(probe);
      const count = 2000;
      const names = Array.from({ length: count }, (_, i) => `part-${String(i).padStart(4, '0')}.bin`);
      for (const name of names) {
        await sparse(path.join(dir, name), 64 << 10);
        await utimes(path.join(dir, name), OLD, new Date());
      }
      await api(t, 'dash.rescan');
      const readSoFar = async () => {
        let read = 0;
        for (const name of names) if ((await stat(path.join(dir, name))).atimeMs !== OLD.getTime()) read++;
        return read;
      };

      const { res, head } = await startPausedZip(`username=${username}`);
      let last = -1;
      await vi.waitFor(
        async () => {
          const now = await readSoFar();
          const settled = now === last;
          last = now;
          expect(settled).toBe(true);
        },
        { timeout: 60_000, interval: 300 },
      );
      // 2000 × 64 KiB = 125 MiB to send; a paused client lets through what the socket buffers hold
      // (loopback autotunes the client's receive buffer up to tcp_rmem's maximum, 32 MiB on Debian
      // 12: one full run read 570 files) and a few MiB of stream buffers, never the whole.
      expect(last).toBeGreaterThan(0);
      expect(last).toBeLessThan(Math.min(count / 2, (await kernelSocketBuffers()) / (64 << 10) + 128));
      const saved = path.join(t.dataDir, 'many.zip');
      try {
        expect(await saveSparse(readableOf(res, head), saved)).toBeGreaterThan(count * (64 << 10));
        expect((await testBigZip(saved)).map((e) => e.name)).toEqual(names);
      } finally {
        await rm(saved, { force: true });
      }
      expect(await readSoFar()).toBe(count);
    });
  });
});

/** The most a loopback connection's two socket buffers can hold (tcp_rmem's and tcp_wmem's maxima), or 16 MiB where /proc cannot tell. */
async function kernelSocketBuffers(): Promise<number> {
  const max = async (name: string) => Number((await readFile(`/proc/sys/net/ipv4/${name}`, 'utf8')).trim().split(/\s+/)[2]);
  return Promise.all([max('tcp_rmem'), max('tcp_wmem')])
    .then(([r, w]) => r + w)
    .catch(() => 16 << 20);
}

/** A paused answer as an async iterable, its first chunks first. */
async function* readableOf(res: http.IncomingMessage, head: Buffer[]): AsyncIterable<Buffer> {
  yield* head;
  for await (const chunk of res) yield chunk as Buffer;
}

/** How far this process has read the open file at `file` (/proc/self/fdinfo's pos). */
async function readFilePosition(file: string): Promise<number> {
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target !== file) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
    const match = /^pos:\s+(\d+)/m.exec(info);
    if (match) return Number(match[1]);
  }
  return -1;
}

/** The resident memory of a process, in bytes (VmRSS of /proc/<pid>/status). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) * 1024;
}

/** A sparse file of `size` bytes (holes: no disk spent). */
async function sparse(file: string, size: number): Promise<void> {
  await writeFile(file, '');
  await truncate(file, size);
}

// Sparse multi-GiB files made in the storage folder (and a `nimbus daemon` child on its own
// data directory): embedded only, and they cost minutes.
onDisk(() => {
  describe('big zips', () => {
    it('streams a 2 GiB folder from a `nimbus daemon` whose resident memory stays flat', { timeout: 600_000 }, async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-zip-rss-'));
      const daemon = await spawnDaemon(dataDir, childEnv({ NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off' }));
      const pid = daemon.child.pid!;
      const headers = { 'API-Key': TEST_KEY };
      const post = (route: string) => fetch(`${daemon.url}${route}`, { method: 'POST', headers }).then((r) => r.status);
      try {
        expect(await post('/api/user/create?username=big&email=big@example.com&password=password123')).toBe(201);
        expect(await post('/api/folders/create?username=big&folder=videos')).toBe(201);
        const folder = path.join(dataDir, 'storage', 'big', 'videos');
        for (const name of ['part1.mp4', 'part2.mp4']) await sparse(path.join(folder, name), GIB);
        expect(await post('/api/dash/rescan')).toBe(200);
        // A first small zip loads the zip code, so what follows measures the streaming alone.
        await fetch(`${daemon.url}/api/folders/download?username=big&folder=videos&files=part1.mp4`, { method: 'HEAD', headers });

        const before = await rssOf(pid);
        let peak = before;
        const sampler = setInterval(
          () =>
            void rssOf(pid).then(
              (rss) => (peak = Math.max(peak, rss)),
              () => {},
            ),
          50,
        );
        const saved = path.join(dataDir, 'videos.zip');
        try {
          const res = await fetch(`${daemon.url}/api/folders/download?username=big&folder=videos`, { headers });
          expect(res.status).toBe(200);
          expect(await saveSparse(res.body!, saved)).toBeGreaterThan(2 * GIB);
        } finally {
          clearInterval(sampler);
        }
        peak = Math.max(peak, await rssOf(pid));
        expect(peak - before, `RSS grew from ${before >> 20} MiB to ${peak >> 20} MiB`).toBeLessThan(64 << 20);
        expect(await testBigZip(saved)).toEqual([
          { name: 'videos/', method: STORED, size: 0, zip64: false, text: null },
          { name: 'videos/part1.mp4', method: STORED, size: GIB, zip64: false, text: null },
          { name: 'videos/part2.mp4', method: STORED, size: GIB, zip64: false, text: null },
        ]);
      } finally {
        daemon.child.kill('SIGTERM');
        await daemon.exited;
        await rm(dataDir, { recursive: true, force: true });
      }
    });

    it('switches to ZIP64 past 4 GiB, and unzip reads every entry', { timeout: 600_000 }, async () => {
      const username = unique('zip64');
      await createUser(t, username);
      const dir = path.join(t.storageDir, username);
      // Over 0xfffffffe bytes: the entry's sizes, the next entry's offset and the central directory's need ZIP64.
      const size = 4 * GIB + 4096;
      await sparse(path.join(dir, 'disk.img'), size);
      await writeFile(path.join(dir, 'zz-after.txt'), 'after the big one\n');
      await api(t, 'dash.rescan');
      const saved = path.join(t.dataDir, 'zip64.zip');
      try {
        const res = await fetch(`${t.url}/api/folders/download?username=${username}`, { headers: { 'API-Key': t.key } });
        expect(await saveSparse(res.body!, saved)).toBeGreaterThan(size);
        expect(await testBigZip(saved)).toEqual([
          { name: 'disk.img', method: STORED, size, zip64: true, text: null },
          { name: 'zz-after.txt', method: DEFLATED, size: 18, zip64: true, text: 'after the big one\n' },
        ]);
      } finally {
        await rm(saved, { force: true });
      }
    });
  });
});

describe('the files list in a link', () => {
  it('travels as one value joined by "/", as the UI and the typed clients build it', () => {
    const target = requestTarget(ENDPOINT_BY_ID['folders.download'], { username: 'ana', folder: 'a b', files: ['x y.txt', 'č.png'] });
    expect(new URL(target, 'http://h').searchParams.get('files')).toBe('x y.txt/č.png');
  });
});
