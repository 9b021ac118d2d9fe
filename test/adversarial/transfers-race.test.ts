/**
 * files.move, files.copy and folders.rename under attack and in races (docs/explorer.md):
 * a move racing a delete (or another move) of the same file has exactly one winner and the
 * file is never lost nor duplicated; copies racing uploads never pass the quota together; a
 * folder rename racing renames, moves and uploads inside it leaves every share on its file;
 * and a directory swapped for a symlink mid-request is never followed (the victim directory
 * outside storage is compared byte for byte after every round).
 */
import { mkdir, readdir, readFile, readlink, rename, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchFactory } from '../../daemon/storage/watcher.js';
import { api } from '../helpers/api.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { openPathsUnder } from '../helpers/open-fds.js';
import { slowUpload } from '../helpers/slow-upload.js';

const ROUNDS = 30;
const AT_ONCE = 12;

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );
/** Starts `call` after a random few milliseconds (up to `ms`), so racing requests meet at different points. */
const later = <T>(call: () => Promise<T>, ms = 6) => new Promise((resolve) => setTimeout(resolve, Math.random() * ms)).then(call);
const tokenOf = (shareUrl: string | null) => new URL(shareUrl ?? 'http://missing/').pathname.split('/')[2];

describe('races between requests', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t.close());

  const onDisk = (...rest: string[]) => path.join(t.storageDir, ...rest);
  const listed = async (username: string, folder?: string) =>
    (await api(t, 'files.list', folder ? { username, folder } : { username })).body.files.map((f) => f.name);

  it(`a move racing a delete of the same file: one wins, the other is a 404; never both, never lost (${ROUNDS} rounds of ${AT_ONCE})`, async () => {
    const username = 'mover';
    await createUser(t, username);
    await api(t, 'folders.create', { username, folder: 'box' });
    const outcomes = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const files = Array.from({ length: AT_ONCE }, (_, i) => `r${round}-${i}.txt`);
      await Promise.all(files.map((file) => upload(t, username, file, `bytes of ${file}`)));
      const results = await Promise.all(
        files.map(async (file) => {
          const [move, del] = await Promise.all([
            later(() => api(t, 'files.move', { username, file, to: 'box' })),
            later(() => api(t, 'files.delete', { username, file })),
          ]);
          return { file, move: move.status, del: del.status };
        }),
      );
      for (const { file, move, del } of results) {
        const where = { round, file, move, del };
        expect(['201/404', '404/200'], JSON.stringify(where)).toContain(`${move}/${del}`);
        outcomes.add(`${move}/${del}`);
        expect(await exists(onDisk(username, file)), JSON.stringify(where)).toBe(false);
        // Moved: at the target, whole; deleted: nowhere in storage (the trash has it).
        if (move === 201) expect(await readFile(onDisk(username, 'box', file), 'utf8')).toBe(`bytes of ${file}`);
        else expect(await exists(onDisk(username, 'box', file)), JSON.stringify(where)).toBe(false);
      }
      const inBox = new Set(await listed(username, 'box'));
      for (const { file, move } of results) expect(inBox.has(file)).toBe(move === 201);
      expect(await listed(username)).toEqual([]);
    }
    // Both orders happened, or the race was never run.
    expect([...outcomes].sort()).toEqual(['201/404', '404/200']);
  }, 180_000);

  it(`two moves of one file to different folders: exactly one lands (${ROUNDS} rounds of ${AT_ONCE})`, async () => {
    const username = 'twomoves';
    await createUser(t, username);
    await api(t, 'folders.create', { username, folder: 'left' });
    await api(t, 'folders.create', { username, folder: 'right' });
    for (let round = 0; round < ROUNDS; round++) {
      const files = Array.from({ length: AT_ONCE }, (_, i) => `m${round}-${i}.txt`);
      await Promise.all(files.map((file) => upload(t, username, file, file)));
      await Promise.all(
        files.map(async (file) => {
          const [a, b] = await Promise.all([
            later(() => api(t, 'files.move', { username, file, to: 'left' })),
            later(() => api(t, 'files.move', { username, file, to: 'right' })),
          ]);
          expect([a.status, b.status].sort()).toEqual([201, 404]);
          const copies = [await exists(onDisk(username, 'left', file)), await exists(onDisk(username, 'right', file))];
          expect(copies.filter(Boolean)).toHaveLength(1);
          expect(copies[0]).toBe(a.status === 201);
        }),
      );
    }
  }, 180_000);

  it(`a move racing an upload of the same name at the target: one lands, the other is a 409, nothing is replaced (${ROUNDS} rounds of ${AT_ONCE})`, async () => {
    const username = 'landing';
    await createUser(t, username);
    await api(t, 'folders.create', { username, folder: 'dest' });
    const outcomes = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const files = Array.from({ length: AT_ONCE }, (_, i) => `l${round}-${i}.txt`);
      await Promise.all(files.map((file) => upload(t, username, file, 'moved bytes')));
      await Promise.all(
        files.map(async (file) => {
          const [move, up] = await Promise.all([
            // An upload takes longer to land than a move: the move starts later, so either may be first.
            later(() => api(t, 'files.move', { username, file, to: 'dest' }), 40),
            later(() => t.api('POST', '/api/files/upload', { username, folder: 'dest', file }, { body: 'uploaded bytes' })),
          ]);
          const outcome = `${move.status}/${up.status}`;
          expect(['201/409', '409/201']).toContain(outcome);
          outcomes.add(outcome);
          const landed = await readFile(onDisk(username, 'dest', file), 'utf8');
          expect(landed).toBe(move.status === 201 ? 'moved bytes' : 'uploaded bytes');
          // A refused move leaves the file where it was.
          expect(await exists(onDisk(username, file))).toBe(move.status !== 201);
        }),
      );
    }
    // Which one is first is the scheduler's: seen both ways on most runs, never asserted.
    expect(outcomes.size).toBeGreaterThan(0);
  }, 180_000);

  it(`a move landing while an upload of that name streams (its name checked free already): the upload is a 409, its temp file gone (${ROUNDS} rounds)`, async () => {
    const username = 'streamtarget';
    await createUser(t, username);
    await api(t, 'folders.create', { username, folder: 'dest' });
    for (let round = 0; round < ROUNDS; round++) {
      const file = `w${round}.txt`;
      await upload(t, username, file, 'moved bytes');
      const up = slowUpload(t.port, t.key, { username, folder: 'dest', file }, 8);
      await up.write('half');
      expect((await api(t, 'files.move', { username, file, to: 'dest' })).status).toBe(201);
      up.end('done');
      const res = await up.response;
      expect({ round, status: res.status }).toEqual({ round, status: 409 });
      expect(await readFile(onDisk(username, 'dest', file), 'utf8')).toBe('moved bytes');
    }
    expect(await readdir(path.join(t.dataDir, 'tmp'))).toEqual([]);
  }, 180_000);

  it(`a folder rename racing the creation of a folder of the new name: exactly one succeeds (${ROUNDS} rounds)`, async () => {
    const username = 'namer';
    await createUser(t, username);
    for (let round = 0; round < ROUNDS; round++) {
      await api(t, 'folders.create', { username, folder: `old${round}` });
      await upload(t, username, 'x.txt', 'x', { folder: `old${round}` });
      const [renamed, created] = await Promise.all([
        later(() => api(t, 'folders.rename', { username, folder: `old${round}`, newname: `new${round}` })),
        later(() => api(t, 'folders.create', { username, folder: `new${round}` })),
      ]);
      expect([renamed.status, created.status].sort()).toEqual([201, 409]);
      // The files are under the name that won for them: the renamed folder, or still the old one.
      const listing = await listed(username, renamed.status === 201 ? `new${round}` : `old${round}`);
      expect(listing).toEqual(['x.txt']);
      expect(await exists(onDisk(username, `old${round}`))).toBe(renamed.status !== 201);
    }
  }, 180_000);

  it(`copies racing uploads never pass the quota together (${ROUNDS} rounds)`, async () => {
    const username = 'quota';
    await createUser(t, username);
    await api(t, 'role.create', { name: 'onemeg', maxStorage: 1, badge: 'https://example.com/b.png' });
    await api(t, 'user.role', { username, name: 'onemeg' });
    const KIB400 = 400 * 1024;
    await upload(t, username, 'src.bin', Buffer.alloc(KIB400, 7));
    for (let i = 0; i < 3; i++) await api(t, 'folders.create', { username, folder: `c${i}` });
    // 400 KiB used of 1 MiB: room for one more 400 KiB file, not two.
    for (let round = 0; round < ROUNDS; round++) {
      const calls = [
        ...[0, 1, 2].map((i) => () => api(t, 'files.copy', { username, file: 'src.bin', to: `c${i}` })),
        ...[0, 1, 2].map(
          (i) => () => t.api('POST', '/api/files/upload', { username, file: `up${i}.bin` }, { body: new Uint8Array(KIB400) }),
        ),
      ];
      const statuses = (await Promise.all(calls.map((c) => later(c)))).map((r) => r.status);
      expect(
        statuses.filter((s) => s === 201),
        `round ${round}: ${statuses}`,
      ).toHaveLength(1);
      expect(statuses.filter((s) => s === 507)).toHaveLength(5);
      const user = (await api(t, 'user.get', { username })).body;
      expect(user.usage.usedBytes).toBe(2 * KIB400);
      // Put the room back for the next round (for good: the trash counts against the quota).
      for (const folder of ['c0', 'c1', 'c2'])
        await t.api('POST', '/api/folders/files/delete', { username, folder, file: 'src.bin', permanent: 'true' });
      for (const file of ['up0.bin', 'up1.bin', 'up2.bin']) await t.api('POST', '/api/files/delete', { username, file, permanent: 'true' });
      expect((await api(t, 'user.get', { username })).body.usage.usedBytes).toBe(KIB400);
    }
    expect(await readdir(path.join(t.dataDir, 'tmp'))).toEqual([]);
  }, 180_000);

  it(`a folder rename racing renames and moves of shared files inside it: every link still downloads its file (${ROUNDS} rounds)`, async () => {
    const username = 'sharer';
    await createUser(t, username);
    let folder = 'f0';
    await api(t, 'folders.create', { username, folder });
    for (let round = 0; round < ROUNDS; round++) {
      const inside = [`a${round}.txt`, `b${round}.txt`];
      const atRoot = `c${round}.txt`;
      for (const file of inside) await upload(t, username, file, `bytes of ${file}`, { folder });
      await upload(t, username, atRoot, `bytes of ${atRoot}`);
      const tokens = new Map<string, string>();
      for (const file of inside) tokens.set(file, tokenOf((await api(t, 'files.share', { username, folder, file })).body.file.shareUrl));
      tokens.set(atRoot, tokenOf((await api(t, 'files.share', { username, file: atRoot })).body.file.shareUrl));
      const next = `f${round + 1}`;
      const [renamed, fileRenamed, movedOut, movedIn] = await Promise.all([
        later(() => api(t, 'folders.rename', { username, folder, newname: next })),
        later(() => api(t, 'folders.files.rename', { username, folder, file: inside[0], newname: `z${inside[0]}` })),
        later(() => api(t, 'files.move', { username, folder, file: inside[1] })),
        later(() => api(t, 'files.move', { username, file: atRoot, to: folder })),
      ]);
      expect(renamed.status).toBe(201);
      for (const res of [fileRenamed, movedOut, movedIn]) expect([201, 404]).toContain(res.status);
      folder = next;
      for (const [file, token] of tokens) {
        const link = await api(t, 'share.download', { token }, { key: null });
        expect({ round, file, status: link.status, text: link.text }).toEqual({ round, file, status: 200, text: `bytes of ${file}` });
      }
      expect(await exists(onDisk(username, `f${round}`))).toBe(false);
    }
  }, 180_000);

  it(`an upload streaming into a folder being renamed: refused (404), or in place under the new name (${ROUNDS} rounds)`, async () => {
    const username = 'streamer';
    await createUser(t, username);
    let folder = 'g0';
    await api(t, 'folders.create', { username, folder });
    for (let round = 0; round < ROUNDS; round++) {
      const up = slowUpload(t.port, t.key, { username, folder, file: `s${round}.txt` }, 8);
      await up.write('half');
      const next = `g${round + 1}`;
      const [renamed] = await Promise.all([
        api(t, 'folders.rename', { username, folder, newname: next }),
        later(async () => up.end('done')),
      ]);
      expect(renamed.status).toBe(201);
      const res = await up.response;
      expect([201, 404]).toContain(res.status);
      expect(await exists(onDisk(username, folder))).toBe(false);
      expect(await exists(onDisk(username, next, `s${round}.txt`))).toBe(res.status === 201);
      folder = next;
    }
    expect(await readdir(path.join(t.dataDir, 'tmp'))).toEqual([]);
  }, 180_000);
});

describe('a symlink swapped in mid-request', () => {
  let t: TestDaemon;
  let outside: string;
  let victim: string;
  let victimBefore: Record<string, string>;
  const home = () => path.join(t.storageDir, 'racer');

  /** Every file and directory under `dir` (links listed as links, never followed) with its content. */
  async function snapshot(dir: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const walk = async (d: string, rel: string) => {
      for (const e of await readdir(d, { withFileTypes: true })) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          out[`${r}/`] = '';
          await walk(path.join(d, e.name), r);
        } else if (e.isSymbolicLink()) out[r] = `-> ${await readlink(path.join(d, e.name))}`;
        else out[r] = await readFile(path.join(d, e.name), 'utf8');
      }
    };
    await walk(dir, '');
    return out;
  }

  /**
   * The names the requests below would touch through a link: a file moved out of `f` would
   * leave `f/o<i>.txt`, one moved in would appear as `f/r<i>.txt`, a folder renamed would
   * take `g<i>` away (and a copy read through it would carry VICTIM bytes into storage).
   */
  async function makeVictim(): Promise<void> {
    await mkdir(path.join(victim, 'f'), { recursive: true });
    const put = (rel: string) => writeFile(path.join(victim, rel), `VICTIM ${rel}`);
    for (let i = 0; i < ROUNDS; i++) {
      await put(`f/o${i}.txt`);
      await mkdir(path.join(victim, `g${i}`));
      await put(`g${i}/x.txt`);
    }
  }

  /** A watch that never reports, so the index keeps the files and every request reaches the disk mid-swap. */
  const silentWatch: WatchFactory = async () => ({ unsubscribe: async () => undefined });

  beforeAll(async () => {
    t = await startTestDaemon({ watchFactory: silentWatch });
    outside = path.join(t.dataDir, 'outside');
    victim = path.join(outside, 'victim');
    await makeVictim();
    victimBefore = await snapshot(victim);
    await createUser(t, 'racer');
    await api(t, 'folders.create', { username: 'racer', folder: 'f' });
    for (let i = 0; i < ROUNDS; i++) {
      await upload(t, 'racer', `r${i}.txt`, 'mine');
      await upload(t, 'racer', `o${i}.txt`, 'mine', { folder: 'f' });
      await api(t, 'folders.create', { username: 'racer', folder: `g${i}` });
      await upload(t, 'racer', 'x.txt', 'mine', { folder: `g${i}` });
    }
  });
  afterAll(() => t.close());

  const expectVictimUntouched = async (round: number | string) =>
    expect({ round, victim: await snapshot(victim) }).toEqual({ round, victim: victimBefore });

  /** A turn of the event loop or up to `ms` milliseconds, at random. */
  const pause = (ms: number) =>
    new Promise((resolve) => (Math.random() < 0.3 ? setImmediate(resolve) : setTimeout(resolve, Math.floor(Math.random() * (ms + 1)))));

  /** Swaps `dir` for a link to `target` and back as fast as the disk allows until stopped. */
  function hammer(dir: string, target: string, aside: string): { stop(): Promise<void> } {
    let running = true;
    const loop = (async () => {
      while (running) {
        await rename(dir, aside);
        await symlink(target, dir);
        await pause(1);
        await unlink(dir);
        await rename(aside, dir);
        await pause(3);
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
      },
    };
  }

  it('a folder that is a link before the request: moves and copies into or out of it are 404s', async () => {
    const dir = path.join(home(), 'f');
    await rename(dir, path.join(outside, 'f-real'));
    await symlink(path.join(victim, 'f'), dir);
    try {
      for (const res of [
        await api(t, 'files.move', { username: 'racer', file: 'r0.txt', to: 'f' }),
        await api(t, 'files.copy', { username: 'racer', file: 'r0.txt', to: 'f' }),
        await api(t, 'files.move', { username: 'racer', folder: 'f', file: 'o0.txt' }),
        await api(t, 'files.copy', { username: 'racer', folder: 'f', file: 'o0.txt' }),
      ])
        expect(res.status).toBe(404);
    } finally {
      await unlink(dir);
      await rename(path.join(outside, 'f-real'), dir);
    }
    await expectVictimUntouched('steady');
  });

  it(`a folder swapped in a tight loop while files move and copy in and out of it (${ROUNDS} rounds)`, async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < ROUNDS; i++) {
      const h = hammer(path.join(home(), 'f'), path.join(victim, 'f'), path.join(outside, 'f-real'));
      const u = { username: 'racer' };
      const results = await Promise.all([
        later(() => api(t, 'files.move', { ...u, file: `r${i}.txt`, to: 'f' })),
        later(() => api(t, 'files.copy', { ...u, folder: 'f', file: `o${i}.txt` })),
        later(() => api(t, 'files.move', { ...u, folder: 'f', file: `o${i}.txt` })),
      ]);
      await h.stop();
      for (const res of results) statuses.add(res.status);
      await expectVictimUntouched(i);
      for (const copy of [path.join(home(), `o${i}.txt`), path.join(home(), 'f', `r${i}.txt`)])
        if (await exists(copy)) expect(await readFile(copy, 'utf8')).toBe('mine');
    }
    // Some requests got through (not all refused up front), some met the link.
    expect(statuses.has(201)).toBe(true);
    expect([...statuses].every((s) => [201, 404, 409].includes(s))).toBe(true);
  }, 180_000);

  it(`the user’s directory swapped in a tight loop while folders are renamed (${ROUNDS} rounds)`, async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < ROUNDS; i++) {
      const h = hammer(home(), victim, path.join(outside, 'racer-real'));
      const res = await later(() => api(t, 'folders.rename', { username: 'racer', folder: `g${i}`, newname: `h${i}` }));
      await h.stop();
      statuses.add(res.status);
      await expectVictimUntouched(i);
    }
    expect([...statuses].every((s) => [201, 404].includes(s))).toBe(true);
  }, 180_000);

  it('leaves no file descriptor open in the storage tree or outside it', async () => {
    const fds = openPathsUnder;
    expect(await fds(t.storageDir)).toEqual([]);
    expect(await fds(outside)).toEqual([]);
  });
});
