/**
 * files.search over a user with 100,000 files in 1,000 folders (the size issue 13 names): every
 * hit found, counted and ordered, pages that add up, accents and case ignored. Speed at this
 * size is a bench row (`BENCH_ONLY=search`), never asserted here.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api.js';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const FOLDERS = 1000;
const PER_FOLDER = 100;
const USER = 'big';
const EXTENSIONS = ['txt', 'pdf', 'jpg', 'md'] as const;

/** The name of file `n` (0…99,999): one in 1,000 has accents and capitals. */
const nameOf = (n: number) =>
  n % 1000 === 7
    ? `Été Résumé ${String(n).padStart(5, '0')}.${EXTENSIONS[n % 4]}`
    : `file-${String(n).padStart(5, '0')}.${EXTENSIONS[n % 4]}`;
const folderOf = (n: number) => `d${String(Math.floor(n / PER_FOLDER)).padStart(3, '0')}`;

let t: TestDaemon;

async function writeAll(root: string): Promise<void> {
  const jobs: Array<() => Promise<void>> = [];
  for (let f = 0; f < FOLDERS; f++) jobs.push(() => mkdir(path.join(root, folderOf(f * PER_FOLDER)), { recursive: true }).then(() => {}));
  await runAll(jobs, 32);
  const files: Array<() => Promise<void>> = [];
  for (let n = 0; n < FOLDERS * PER_FOLDER; n++) files.push(() => writeFile(path.join(root, folderOf(n), nameOf(n)), ''));
  await runAll(files, 64);
}

async function runAll(jobs: Array<() => Promise<void>>, width: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) await jobs[next++]();
    }),
  );
}

/** The expected hits of `q` (a plain lower-case ASCII needle), as `folder/name`, in the answer's order. */
function expected(match: (name: string) => boolean): string[] {
  const hits: Array<{ name: string; folder: string }> = [];
  for (let n = 0; n < FOLDERS * PER_FOLDER; n++) if (match(nameOf(n))) hits.push({ name: nameOf(n), folder: folderOf(n) });
  const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  hits.sort((a, b) => (fold(a.name) < fold(b.name) ? -1 : fold(a.name) > fold(b.name) ? 1 : a.name < b.name ? -1 : 1));
  return hits.map((h) => `${h.folder}/${h.name}`);
}

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, USER);
  await t.stop();
  await writeAll(path.join(t.storageDir, USER));
  await t.restart();
  // The first scan reads 100,000 entries; a search waits for it (readsIndex) and then answers.
}, 180_000);
afterAll(() => t?.close());

async function search(q: string, page: { limit?: number; offset?: number } = {}) {
  const res = await api(t, 'files.search', { username: USER, q, limit: page.limit, offset: page.offset });
  expect(res.status, res.text).toBe(200);
  return { total: Number(res.headers.get('x-total-count')), hits: res.body.files.map((f) => `${f.folder}/${f.name}`) };
}

describe('files.search at 100,000 files', () => {
  it('finds one file among all of them', async () => {
    expect(await search('FILE-09998')).toEqual({ total: 1, hits: ['d099/file-09998.jpg'] });
  });

  it('counts every hit and orders the first page like a full sort', async () => {
    const all = expected((name) => name.toLowerCase().endsWith('.pdf'));
    expect(all.length).toBe(25_000);
    const first = await search('.PDF', { limit: 100 });
    expect(first.total).toBe(all.length);
    expect(first.hits).toEqual(all.slice(0, 100));
    const deep = await search('.pdf', { limit: 50, offset: 24_990 });
    expect(deep.total).toBe(all.length);
    expect(deep.hits).toEqual(all.slice(24_990));
  }, 30_000);

  it('ignores accents and case across folders, and pages add up to the whole', async () => {
    const all = expected((name) => name.startsWith('Été'));
    expect(all.length).toBe(100);
    const pages = [];
    for (let offset = 0; offset < 100; offset += 30) pages.push(...(await search('ete resume', { limit: 30, offset })).hits);
    expect(pages).toEqual(all);
  });

  it('answers an empty page for a text no name holds', async () => {
    expect(await search('no such name')).toEqual({ total: 0, hits: [] });
  });
});
