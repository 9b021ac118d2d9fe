/**
 * Issue 25: the symlink races of symlink-race.test.ts at depth. A folder levels down (and
 * one in the middle of the path) swapped for a link to a directory outside storage while
 * requests at depth run is never followed: nothing outside is read, written or deleted.
 */
import { mkdir, readdir, readFile, readlink, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WatchFactory } from '../../daemon/storage/watcher.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { slowUpload } from '../helpers/slow-upload.js';

const ROUNDS = 30;
const DEEP = 'p/q/r';
let t: TestDaemon;
let outside: string;
let victim: string;
let victimBefore: Record<string, string>;
let downloads: string[] = [];
/** Folders copies went into, one per round (their contents are checked for the victim's bytes). */
let copiesMade = 0;

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

/** The victim holds the names the requests use, at the depths a followed link would reach. */
async function makeVictim(): Promise<void> {
  for (const dir of ['q/r', 'r']) {
    await mkdir(path.join(victim, dir), { recursive: true });
    for (const name of ['a.txt', ...Array.from({ length: ROUNDS }, (_, i) => [`d${i}.txt`, `n${i}.txt`]).flat()])
      await writeFile(path.join(victim, dir, name), `VICTIM ${dir}/${name}`);
    for (let i = 0; i < ROUNDS; i++) for (const sub of [`s${i}`, `t${i}`, `g${i}`]) await mkdir(path.join(victim, dir, sub));
  }
}

const expectVictimUntouched = async (round: number | string) =>
  expect({ round, victim: await snapshot(victim) }).toEqual({ round, victim: victimBefore });

/** A watch that never reports, so every request reaches the disk mid-swap (as in symlink-race.test.ts). */
const silentWatch: WatchFactory = async () => ({ unsubscribe: async () => undefined });

beforeAll(async () => {
  t = await startTestDaemon({ watchFactory: silentWatch });
  outside = path.join(t.dataDir, 'outside');
  victim = path.join(outside, 'victim');
  await createUser(t, 'racer');
  expect((await t.api('POST', '/api/folders/create', { username: 'racer', folder: DEEP, parents: 'true' })).status).toBe(201);
  await upload(t, 'racer', 'a.txt', 'racer a', { folder: DEEP });
  for (let i = 0; i < ROUNDS; i++) {
    await upload(t, 'racer', `d${i}.txt`, 'mine', { folder: DEEP });
    await upload(t, 'racer', `n${i}.txt`, 'mine', { folder: DEEP });
    for (const sub of [`s${i}`, `g${i}`])
      expect((await t.api('POST', '/api/folders/create', { username: 'racer', folder: `${DEEP}/${sub}` })).status).toBe(201);
  }
});
afterAll(() => t.close());

beforeEach(async () => {
  await rm(victim, { recursive: true, force: true });
  await makeVictim();
  victimBefore = await snapshot(victim);
  downloads = [];
});

/** Every kind of request at depth on round i's names, each after a random few milliseconds. */
async function burst(i: number): Promise<void> {
  const u = { username: 'racer', folder: DEEP };
  const later = (call: () => Promise<unknown>) => new Promise((resolve) => setTimeout(resolve, Math.random() * 12)).then(call);
  const api = (method: string, route: string, params: Record<string, string>, body?: string) =>
    later(() => t.api(method, route, { ...u, ...params }, body === undefined ? {} : { body }));
  const get = () =>
    later(async () => {
      downloads.push((await t.api('GET', '/api/files/download', { ...u, file: 'a.txt' })).text);
    });
  // A folder to copy into the swapped one, and one to copy the swapped one into (outside it, at the root).
  const copy = `cp${++copiesMade}`;
  expect((await t.api('POST', '/api/folders/create', { username: 'racer', folder: copy })).status).toBe(201);
  await upload(t, 'racer', 'c.txt', 'mine', { folder: copy });
  expect((await t.api('POST', '/api/folders/create', { username: 'racer', folder: `into-${copy}` })).status).toBe(201);
  await Promise.all([
    ...Array.from({ length: 4 }, get),
    api('POST', '/api/files/upload', { file: `up${i}.txt` }, 'pwn'),
    api('POST', '/api/files/upload', { file: 'a.txt', overwrite: 'true' }, 'racer a'),
    api('POST', '/api/files/delete', { file: `d${i}.txt` }),
    api('POST', '/api/files/rename', { file: `n${i}.txt`, newname: `m${i}.txt` }),
    api('POST', '/api/folders/create', { folder: `${DEEP}/h${i}` }),
    // A folder renamed inside the swapped one and moved out of it and back: one of each pair finds its folder (each test flips them).
    api('POST', '/api/folders/rename', { folder: `${DEEP}/s${i}`, newname: `t${i}` }),
    api('POST', '/api/folders/rename', { folder: `${DEEP}/t${i}`, newname: `s${i}` }),
    api('POST', '/api/folders/move', { folder: `${DEEP}/g${i}`, to: 'p' }),
    api('POST', '/api/folders/move', { folder: `p/g${i}`, to: DEEP }),
    // A copy into the swapped folder, and one of it out: each lands in the real directory or is refused.
    later(() => t.api('POST', '/api/folders/copy', { username: 'racer', folder: copy, to: DEEP })),
    later(() => t.api('POST', '/api/folders/copy', { username: 'racer', folder: DEEP, to: `into-${copy}` })),
    api('GET', '/api/files', {}),
  ]);
}

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

/** Files under the copies' target folders holding the victim's bytes (a copy that read through the link). */
async function copiedVictimBytes(home: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of (await readdir(home)).filter((name) => name.startsWith('into-'))) {
    const copied = await snapshot(path.join(home, dir));
    for (const [where, text] of Object.entries(copied)) if (text.includes('VICTIM')) found.push(`${dir}/${where}`);
  }
  return found;
}

describe('a symlink swapped in at depth mid-request', () => {
  for (const [which, rel, target] of [
    ['the deepest folder', 'p/q/r', 'r'],
    ['a folder in the middle of the path', 'p/q', 'q'],
  ] as const) {
    it(`${which}, swapped in a tight loop while requests at depth run (${ROUNDS} rounds)`, async () => {
      const home = path.join(t.storageDir, 'racer');
      for (let i = 0; i < ROUNDS; i++) {
        const h = hammer(path.join(home, rel), path.join(victim, target), path.join(outside, `${target}-real`));
        await burst(i);
        await h.stop();
        await expectVictimUntouched(i);
      }
      expect(downloads.filter((d) => d.includes('VICTIM'))).toEqual([]);
      expect(await copiedVictimBytes(home)).toEqual([]);
      // Copies did reach the disk too: some of the swapped folder's copies landed.
      const landed = await Promise.all((await readdir(home)).filter((d) => d.startsWith('into-')).map((d) => readdir(path.join(home, d))));
      expect(landed.some((names) => names.includes('r'))).toBe(true);
      // The requests did reach the disk at depth while the link came and went.
      expect(downloads.some((d) => d.startsWith('racer'))).toBe(true);
    }, 120_000);
  }

  it('while an upload body at depth streams, the middle folder swapped for a link: never followed', async () => {
    const home = path.join(t.storageDir, 'racer');
    for (let i = 0; i < 10; i++) {
      const up = slowUpload(t.port, t.key, { username: 'racer', folder: DEEP, file: `s${i}.txt` }, 8);
      await up.write('pwn-');
      await rename(path.join(home, 'p', 'q'), path.join(outside, 'q-real'));
      await symlink(path.join(victim, 'q'), path.join(home, 'p', 'q'));
      up.end('pwn!');
      // Placed in the real directory it was opened in (wherever that now is) or refused: never through the link, never a 5xx.
      const res = await up.response;
      expect(res.status, res.text).toBeLessThan(500);
      await unlink(path.join(home, 'p', 'q'));
      await rename(path.join(outside, 'q-real'), path.join(home, 'p', 'q'));
      await expectVictimUntouched(i);
    }
  }, 60_000);
});
