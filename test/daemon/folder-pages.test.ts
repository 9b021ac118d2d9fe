/**
 * A page of a folder's listing is kept between requests (services/folder-pages.ts) and served
 * again only while nothing in it changed: each change below, made through the API, through
 * another folder's name or by a program writing in the storage folder, shows in the next
 * request for the very same page.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;

interface Entry {
  name: string;
  folder: string | null;
  size: number;
  shared: boolean;
  shareUrl: string | null;
}

async function page(folder: string, offset = 10, limit = 5): Promise<{ status: number; total: string | null; entries: Entry[] }> {
  const res = await t.api('GET', '/api/files', { username: 'ana', folder, offset: String(offset), limit: String(limit) });
  return { status: res.status, total: res.headers.get('X-Total-Count'), entries: res.body.files as Entry[] };
}
const names = async (folder: string) => (await page(folder)).entries.map((e) => e.name);
const entry = async (folder: string, name: string) => (await page(folder)).entries.find((e) => e.name === name);

beforeAll(async () => {
  t = await startTestDaemon({ backend: 'embedded' });
  await createUser(t, 'ana');
  expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' })).status).toBe(201);
  for (let i = 0; i < 30; i++) await upload(t, 'ana', `f-${String(i).padStart(2, '0')}.txt`, 'x'.repeat(i), { folder: 'docs' });
});

afterAll(async () => {
  await t.close();
});

describe('a page of a folder kept between requests', () => {
  it('is the same page while nothing changed, and shows every change at the next request', async () => {
    const first = await page('docs');
    expect(first.entries.map((e) => e.name)).toEqual(['f-10.txt', 'f-11.txt', 'f-12.txt', 'f-13.txt', 'f-14.txt']);
    expect(first.total).toBe('30');
    expect(await page('docs')).toEqual(first);

    // A new name before the page moves every entry of it.
    await upload(t, 'ana', 'a-new.txt', 'new', { folder: 'docs' });
    expect(await names('docs')).toEqual(['f-09.txt', 'f-10.txt', 'f-11.txt', 'f-12.txt', 'f-13.txt']);
    expect((await page('docs')).total).toBe('31');

    // An overwrite changes one entry's size, the names stay.
    await upload(t, 'ana', 'f-10.txt', 'overwritten, longer', { folder: 'docs', overwrite: 'true' });
    expect((await entry('docs', 'f-10.txt'))?.size).toBe(19);

    // A rename, a delete.
    expect(
      (await t.api('POST', '/api/files/rename', { username: 'ana', folder: 'docs', file: 'f-11.txt', newname: 'f-11b.txt' })).status,
    ).toBe(201);
    expect(await names('docs')).toEqual(['f-09.txt', 'f-10.txt', 'f-11b.txt', 'f-12.txt', 'f-13.txt']);
    expect((await t.api('POST', '/api/files/delete', { username: 'ana', folder: 'docs', file: 'a-new.txt' })).status).toBe(200);
    expect(await names('docs')).toEqual(['f-10.txt', 'f-11b.txt', 'f-12.txt', 'f-13.txt', 'f-14.txt']);

    // A share link shows, and goes, though the folder's files did not change.
    const shared = await t.api('POST', '/api/files/share', { username: 'ana', folder: 'docs', file: 'f-12.txt' });
    expect(shared.status).toBe(201);
    expect(await entry('docs', 'f-12.txt')).toMatchObject({ shared: true, shareUrl: expect.stringContaining('/s/') });
    expect((await t.api('POST', '/api/files/noshare', { username: 'ana', folder: 'docs', file: 'f-12.txt' })).status).toBe(201);
    expect(await entry('docs', 'f-12.txt')).toMatchObject({ shared: false, shareUrl: null });
    expect(await page('docs')).toEqual(await page('docs'));

    // The folder renamed keeps its files, and its entries name the new path; the old one is gone.
    expect((await t.api('POST', '/api/folders/rename', { username: 'ana', folder: 'docs', newname: 'papers' })).status).toBe(201);
    expect((await page('papers')).entries.map((e) => e.folder)).toEqual(Array(5).fill('papers'));
    expect((await page('docs')).status).toBe(404);

    // A program writing in the storage folder: the watcher's change shows.
    await writeFile(path.join(t.storageDir, 'ana', 'papers', 'f-13.txt'), 'written by another program');
    await vi.waitFor(async () => expect((await entry('papers', 'f-13.txt'))?.size).toBe(26), { timeout: 10_000 });
  });

  it('serves each of several pages of one folder right, whichever was asked last', async () => {
    const all = (await t.api('GET', '/api/files', { username: 'ana', folder: 'papers' })).body.files as Entry[];
    for (let round = 0; round < 3; round++)
      for (const [offset, limit] of [
        [0, 5],
        [5, 5],
        [0, 100],
        [28, 5],
      ])
        expect((await page('papers', offset, limit)).entries).toEqual(all.slice(offset, offset + limit));
  });
});
