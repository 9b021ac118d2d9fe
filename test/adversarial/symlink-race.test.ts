/**
 * A user's directory or a folder replaced by a symlink to a directory outside storage —
 * before the user exists, between requests, or in the middle of one — is never followed:
 * nothing outside the storage tree is read, written or deleted. The race tests swap the
 * link in and out while requests run, many rounds, and compare the outside "victim"
 * directory byte for byte after each round.
 */
import { mkdir, readdir, readFile, readlink, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WatchFactory } from '../../daemon/storage/watcher.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { openPathsUnder } from '../helpers/open-fds.js';
import { slowUpload } from '../helpers/slow-upload.js';

const ROUNDS = 60;
let t: TestDaemon;
let outside: string;
let victim: string;
let victimBefore: Record<string, string>;

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

/** Names every operation below uses, in the victim too: following a link would find them. */
async function makeVictim(): Promise<void> {
  await mkdir(path.join(victim, 'f'), { recursive: true });
  const put = (rel: string) => writeFile(path.join(victim, rel), `VICTIM ${rel}`);
  await put('a.txt');
  await put('f/a.txt');
  await put('victim-only.txt');
  for (let i = 0; i < ROUNDS; i++) {
    await put(`d${i}.txt`);
    await put(`n${i}.txt`);
    await put(`f/d${i}.txt`);
    await mkdir(path.join(victim, `g${i}`));
    await put(`g${i}/x.txt`);
  }
}

/** File descriptors of this process (the daemon runs in it) open on something under `dir`, held directories aside. */
const fdsUnder = openPathsUnder;

const listNames = async (username: string, folder?: string) => {
  const res = await t.api('GET', '/api/files', folder ? { username, folder } : { username });
  return res.status === 200 ? (res.body.files.map((f: { name: string }) => f.name) as string[]) : [];
};

/** A daemon with a victim directory beside its storage. */
async function start(options: Parameters<typeof startTestDaemon>[0] = {}): Promise<void> {
  t = await startTestDaemon(options);
  outside = path.join(t.dataDir, 'outside');
  victim = path.join(outside, 'victim');
  await makeVictim();
  victimBefore = await snapshot(victim);
}

/**
 * A watch that never reports: while the link comes and goes, the real watcher would (rightly)
 * drop the user's files from the index, and most requests would end at a 404 before
 * touching the disk. With the index left alone every request reaches the disk mid-swap.
 */
const silentWatch: WatchFactory = async () => ({ unsubscribe: async () => undefined });

beforeAll(() => start());
afterAll(() => t.close());

async function expectVictimUntouched(round: number | string = 'end'): Promise<void> {
  expect({ round, victim: await snapshot(victim) }).toEqual({ round, victim: victimBefore });
}

describe('a symlink that is already there', () => {
  it('at <storage>/<user> before the user is created: the user is refused (409) and the link never adopted', async () => {
    await symlink(victim, path.join(t.storageDir, 'ghost'));
    const res = await t.api('POST', '/api/user/create', { username: 'ghost', email: 'g@example.com', password: 'password123' });
    expect(res.status).toBe(409);
    expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
    expect((await t.api('GET', '/api/user', { username: 'ghost' })).status).toBe(404);
    await unlink(path.join(t.storageDir, 'ghost'));
    await expectVictimUntouched();
  });

  it('as a user’s directory: nothing is listed, read, written or deleted through it, across rescans', async () => {
    await createUser(t, 'steady');
    await t.api('POST', '/api/folders/create', { username: 'steady', folder: 'f' });
    await t.api('POST', '/api/folders/create', { username: 'steady', folder: 'g0' });
    await upload(t, 'steady', 'a.txt', 'mine');
    await upload(t, 'steady', 'd0.txt', 'mine');
    await upload(t, 'steady', 'n0.txt', 'mine');
    await upload(t, 'steady', 'a.txt', 'mine f', { folder: 'f' });
    const home = path.join(t.storageDir, 'steady');
    await rename(home, path.join(outside, 'steady-real'));
    await symlink(victim, home);
    for (let pass = 0; pass < 2; pass++) {
      expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
      expect(await listNames('steady')).not.toContain('victim-only.txt');
      const u = { username: 'steady' };
      for (const q of [{ file: 'a.txt' }, { file: 'a.txt', folder: 'f' }, { file: 'victim-only.txt' }] as Record<string, string>[]) {
        const res = await t.api('GET', '/api/files/download', { ...u, ...q });
        expect(res.text).not.toMatch(/VICTIM/);
      }
      await t.api('POST', '/api/files/upload', { ...u, file: 'new.txt' }, { body: 'pwn' });
      await t.api('POST', '/api/files/upload', { ...u, file: 'a.txt', overwrite: 'true' }, { body: 'pwn' });
      await t.api('POST', '/api/files/upload', { ...u, folder: 'f', file: 'new.txt' }, { body: 'pwn' });
      await t.api('POST', '/api/files/delete', { ...u, file: 'd0.txt' });
      await t.api('POST', '/api/files/rename', { ...u, file: 'n0.txt', newname: 'm0.txt' });
      await t.api('POST', '/api/folders/delete', { ...u, folder: 'g0' });
      await t.api('POST', '/api/folders/create', { ...u, folder: 'made' });
      await expectVictimUntouched(`pass ${pass}`);
    }
    expect((await t.api('POST', '/api/user/delete', { username: 'steady' })).status).toBe(200);
    await expectVictimUntouched();
  });

  it('as a folder: nothing is listed, read, written or deleted through it', async () => {
    await createUser(t, 'steadyf');
    await t.api('POST', '/api/folders/create', { username: 'steadyf', folder: 'f' });
    await upload(t, 'steadyf', 'a.txt', 'mine', { folder: 'f' });
    await upload(t, 'steadyf', 'd0.txt', 'mine', { folder: 'f' });
    const dir = path.join(t.storageDir, 'steadyf', 'f');
    await rm(dir, { recursive: true });
    await symlink(path.join(victim, 'f'), dir);
    const u = { username: 'steadyf', folder: 'f' };
    expect((await t.api('GET', '/api/files/download', { ...u, file: 'a.txt' })).text).not.toMatch(/VICTIM/);
    await t.api('POST', '/api/files/upload', { ...u, file: 'new.txt' }, { body: 'pwn' });
    await t.api('POST', '/api/files/delete', { ...u, file: 'd0.txt' });
    await t.api('POST', '/api/dash/rescan');
    expect(await listNames('steadyf', 'f')).toEqual([]);
    await t.api('POST', '/api/folders/delete', u);
    await expectVictimUntouched();
  });
});

describe('the watcher', () => {
  it('does not read through a user’s directory swapped for a link (a change in the moved directory reads as gone)', async () => {
    await createUser(t, 'watched');
    await upload(t, 'watched', 'a.txt', 'mine');
    const home = path.join(t.storageDir, 'watched');
    // Once a file dropped in is listed, the watcher is watching the new user's directory.
    await writeFile(path.join(home, 'probe.txt'), 'probe');
    await vi.waitFor(async () => expect(await listNames('watched')).toContain('probe.txt'), { timeout: 5000 });
    const moved = path.join(outside, 'watched-real');
    await rename(home, moved);
    await symlink(victim, home);
    // The watch follows the moved directory: this change is reported under the old path.
    await writeFile(path.join(moved, 'a.txt'), 'mine, edited');
    const sizes: number[] = [];
    await vi.waitFor(
      async () => {
        const files = (await t.api('GET', '/api/files', { username: 'watched' })).body.files as { name: string; size: number }[];
        sizes.push(...files.filter((f) => f.name === 'a.txt').map((f) => f.size));
        expect(files.map((f) => f.name)).not.toContain('a.txt');
      },
      { timeout: 5000, interval: 50 },
    );
    // Never the size of the victim's a.txt, which is what lstat through the link would see.
    expect(sizes).not.toContain(victimBefore['a.txt'].length);
    await expectVictimUntouched();
  });
});

describe('a symlink swapped in mid-request', () => {
  const home = () => path.join(t.storageDir, 'racer');
  const stash = () => path.join(outside, 'racer-real');
  let downloads: string[] = [];

  // Each test starts from the same victim, so a failure is that test's own.
  beforeEach(async () => {
    await rm(victim, { recursive: true, force: true });
    await makeVictim();
  });

  beforeAll(async () => {
    await t.close();
    await start({ watchFactory: silentWatch });
    await createUser(t, 'racer');
    await t.api('POST', '/api/folders/create', { username: 'racer', folder: 'f' });
    await upload(t, 'racer', 'a.txt', 'racer a');
    await upload(t, 'racer', 'a.txt', 'racer f/a', { folder: 'f' });
    for (let i = 0; i < ROUNDS; i++) {
      await upload(t, 'racer', `d${i}.txt`, 'mine');
      await upload(t, 'racer', `n${i}.txt`, 'mine');
      await upload(t, 'racer', `d${i}.txt`, 'mine', { folder: 'f' });
      await t.api('POST', '/api/folders/create', { username: 'racer', folder: `g${i}` });
    }
  });

  /**
   * Every kind of request on round i's names, each started after a random few
   * milliseconds so they meet the link at different points; download bodies are kept.
   */
  async function burst(i: number, folderOnly = false): Promise<void> {
    const u = { username: 'racer' };
    const later = (call: () => Promise<unknown>) => new Promise((resolve) => setTimeout(resolve, Math.random() * 12)).then(call);
    const api = (method: string, route: string, params: Record<string, string>, body?: string) =>
      later(() => t.api(method, route, { ...u, ...params }, body === undefined ? {} : { body }));
    const get = (q: Record<string, string>) =>
      later(async () => {
        downloads.push((await t.api('GET', '/api/files/download', { ...u, ...q })).text);
      });
    const ops: Promise<unknown>[] = [
      ...Array.from({ length: 4 }, () => get({ file: 'a.txt', folder: 'f' })),
      api('POST', '/api/files/upload', { folder: 'f', file: `fu${i}.txt`, overwrite: 'true' }, 'pwn'),
      api('POST', '/api/files/delete', { folder: 'f', file: `d${i}.txt` }),
      api('GET', '/api/files', { folder: 'f' }),
    ];
    if (!folderOnly) {
      ops.push(
        ...Array.from({ length: 4 }, () => get({ file: 'a.txt' })),
        api('POST', '/api/files/upload', { file: `up${i}.txt` }, 'pwn'),
        api('POST', '/api/files/upload', { file: 'a.txt', overwrite: 'true' }, 'racer a'),
        api('POST', '/api/files/delete', { file: `d${i}.txt` }),
        api('POST', '/api/files/rename', { file: `n${i}.txt`, newname: `m${i}.txt` }),
        api('POST', '/api/folders/delete', { folder: `g${i}` }),
        api('POST', '/api/folders/create', { folder: `h${i}` }),
      );
    }
    await Promise.all(ops);
  }

  /** A turn of the event loop or up to `ms` milliseconds, at random: how long each state lasts varies. */
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
        // The real directory stays a little longer, so requests also get through the checks and meet the link later on.
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

  it(`the user’s directory, while an upload body streams (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const up = slowUpload(t.port, t.key, { username: 'racer', file: `s${i}.txt` }, 8);
      const upF = slowUpload(t.port, t.key, { username: 'racer', folder: 'f', file: `s${i}.txt` }, 8);
      await up.write('pwn-');
      await upF.write('pwn-');
      await rename(home(), stash());
      await symlink(victim, home());
      up.end('pwn!');
      upF.end('pwn!');
      await Promise.all([up.response, upF.response, burst(i)]);
      await unlink(home());
      await rename(stash(), home());
      await expectVictimUntouched(i);
    }
    expect(downloads.filter((d) => d.includes('VICTIM'))).toEqual([]);
  }, 120_000);

  it(`the user’s directory, swapped in a tight loop while requests run (${ROUNDS} rounds)`, async () => {
    downloads = [];
    for (let i = 0; i < ROUNDS; i++) {
      const h = hammer(home(), victim, stash());
      await burst(i);
      await h.stop();
      await expectVictimUntouched(i);
    }
    expect(downloads.filter((d) => d.includes('VICTIM'))).toEqual([]);
    // The requests did reach the disk while the link came and went (not all refused up front).
    expect(downloads.some((d) => d.startsWith('racer'))).toBe(true);
    await t.api('POST', '/api/dash/rescan');
    expect(await listNames('racer')).not.toContain('victim-only.txt');
  }, 120_000);

  it(`a folder, swapped in a tight loop while requests run (${ROUNDS} rounds)`, async () => {
    downloads = [];
    for (let i = 0; i < ROUNDS; i++) {
      const h = hammer(path.join(home(), 'f'), path.join(victim, 'f'), path.join(outside, 'f-real'));
      await burst(i, true);
      await h.stop();
      await expectVictimUntouched(i);
    }
    expect(downloads.filter((d) => d.includes('VICTIM'))).toEqual([]);
    expect(downloads.some((d) => d.startsWith('racer'))).toBe(true);
  }, 120_000);

  it('leaves no file descriptor open in the storage tree or outside it', async () => {
    await vi.waitFor(async () => {
      expect(await fdsUnder(t.storageDir)).toEqual([]);
      expect(await fdsUnder(outside)).toEqual([]);
    });
  });

  it('deleting the user while its directory is a link removes the link, not what it points to', async () => {
    await rename(home(), stash());
    await symlink(victim, home());
    expect((await t.api('POST', '/api/user/delete', { username: 'racer' })).status).toBe(200);
    await expectVictimUntouched();
  });
});
