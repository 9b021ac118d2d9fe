/**
 * Issue 30: the daemon keeps the directories of busy folders open across requests
 * (storage/held-dirs.ts). While uploads and downloads stream into a folder, another program
 * moves that folder into another user's tree, deletes and re-creates it, or swaps the user's
 * directory for a link to where it went. A request that begins after such a change never uses
 * the directory that was there before: nothing lands in, and nothing is read from, the moved
 * or deleted one; a request already running may finish where it began (as it always could).
 */
import { mkdir, readdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchFactory } from '../../daemon/storage/watcher.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const ROUNDS = 18;
let t: TestDaemon;
let outside: string;

/** A watch that never reports, so the index keeps naming the folder and every request reaches the disk. */
const silentWatch: WatchFactory = async () => ({ unsubscribe: async () => undefined });

/** The content of a.txt in round i's folder: the same length every round (the index keeps the first size). */
const contentOf = (round: number) => `round ${String(round).padStart(4, '0')}`;

interface Sent {
  name: string;
  startedAt: number;
  status: number;
  text: string;
}

beforeAll(async () => {
  t = await startTestDaemon({ watchFactory: silentWatch });
  outside = path.join(t.dataDir, 'outside');
  await mkdir(outside);
  await createUser(t, 'alice');
  await createUser(t, 'bob');
  expect((await t.api('POST', '/api/folders/create', { username: 'alice', folder: 'docs' })).status).toBe(201);
  await upload(t, 'alice', 'a.txt', contentOf(0), { folder: 'docs' });
});
afterAll(() => t.close());

/** Uploads (new names) and downloads of a.txt in alice/docs, four of each at a time, until `stop()`. */
function traffic(round: number): { stop(): Promise<{ uploads: Sent[]; downloads: Sent[] }> } {
  let running = true;
  const uploads: Sent[] = [];
  const downloads: Sent[] = [];
  let n = 0;
  const uploader = async () => {
    while (running) {
      const name = `r${round}-${n++}.txt`;
      const startedAt = performance.now();
      const res = await t.api('POST', '/api/files/upload', { username: 'alice', folder: 'docs', file: name }, { body: 'alice' });
      uploads.push({ name, startedAt, status: res.status, text: res.text });
    }
  };
  const downloader = async () => {
    while (running) {
      const startedAt = performance.now();
      const res = await t.api('GET', '/api/files/download', { username: 'alice', folder: 'docs', file: 'a.txt' });
      downloads.push({ name: 'a.txt', startedAt, status: res.status, text: res.text });
    }
  };
  const all = Promise.all([...Array.from({ length: 4 }, uploader), ...Array.from({ length: 4 }, downloader)]);
  return {
    stop: async () => {
      running = false;
      await all;
      return { uploads, downloads };
    },
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const docs = () => path.join(t.storageDir, 'alice', 'docs');

/** A folder for round i made aside, with its a.txt, to be renamed into place in one step. */
async function freshFolder(round: number): Promise<string> {
  const made = path.join(outside, `fresh-${round}`);
  await mkdir(made);
  await writeFile(path.join(made, 'a.txt'), contentOf(round));
  return made;
}

describe('held directories while another program moves, replaces and deletes them', () => {
  it(`never hands a request that began after the change the directory that was there (${ROUNDS} rounds)`, async () => {
    let landedAfter = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const fresh = await freshFolder(round);
      const load = traffic(round);
      await pause(5 + Math.random() * 20);
      const kind = round % 3;
      if (kind === 0) {
        // Moved into bob's tree: what alice sends afterwards must not land there.
        const into = path.join(t.storageDir, 'bob', `stolen-${round}`);
        await rename(docs(), into);
        const stolenAt = performance.now();
        await rename(fresh, docs());
        await pause(15);
        const { uploads } = await load.stop();
        const began = new Map(uploads.map((u) => [u.name, u.startedAt]));
        for (const name of (await readdir(into)).filter((n) => n.startsWith(`r${round}-`)))
          expect({ round, name, beganBeforeTheMove: began.get(name)! < stolenAt }).toEqual({ round, name, beganBeforeTheMove: true });
        for (const sent of uploads.filter((u) => u.startedAt > stolenAt && u.status === 201)) {
          expect({ round, name: sent.name, inNewFolder: (await readdir(docs())).includes(sent.name) }).toEqual({
            round,
            name: sent.name,
            inNewFolder: true,
          });
          landedAfter++;
        }
        continue;
      } else if (kind === 1) {
        // Deleted whole (taken out of the tree first: uploads still arriving in it would keep a
        // removal in place from ever finishing), and a new folder put in its place.
        const gone = path.join(outside, `deleted-${round}`);
        await rename(docs(), gone);
        await rm(gone, { recursive: true, maxRetries: 10 });
        await rename(fresh, docs());
      } else {
        // The user's directory swapped for a link to where it went: refused until it is back.
        const aside = path.join(outside, `alice-${round}`);
        await rename(path.join(t.storageDir, 'alice'), aside);
        await symlink(aside, path.join(t.storageDir, 'alice'));
        const swappedAt = performance.now();
        await pause(10);
        const during = await load.stop();
        await unlink(path.join(t.storageDir, 'alice'));
        await rename(aside, path.join(t.storageDir, 'alice'));
        await rename(docs(), path.join(outside, `was-${round}`));
        await rename(fresh, docs());
        for (const sent of during.uploads.filter((u) => u.startedAt > swappedAt))
          expect({ round, ...sent }).not.toMatchObject({ status: 201 });
        for (const sent of during.downloads.filter((d) => d.startedAt > swappedAt))
          expect({ round, ...sent }).not.toMatchObject({ status: 200 });
        continue;
      }
      const changedAt = performance.now();
      await pause(15);
      const { uploads, downloads } = await load.stop();
      // Every upload that began after the change and was acknowledged is in the new folder.
      const here = new Set(await readdir(docs()));
      for (const sent of uploads.filter((u) => u.startedAt > changedAt && u.status === 201)) {
        expect({ round, name: sent.name, inNewFolder: here.has(sent.name) }).toEqual({ round, name: sent.name, inNewFolder: true });
        landedAfter++;
      }
      // Every download that began after it read this round's a.txt (or found none), never an earlier round's.
      for (const got of downloads.filter((d) => d.startedAt > changedAt && d.status === 200))
        expect({ round, text: got.text }).toEqual({ round, text: contentOf(round) });
    }
    expect(landedAfter).toBeGreaterThan(0);
  }, 120_000);
});
