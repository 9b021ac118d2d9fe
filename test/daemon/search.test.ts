/** files.search: a user's files by name, across the root and every folder, ignoring case and accents. */
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, apiLoose, signIn } from '../helpers/api.js';
import { onDisk } from '../helpers/backend.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody, expectFileEntry } from '../helpers/records.js';

const WAIT = { timeout: 8000, interval: 25 };
let t: TestDaemon;
let userCount = 0;

/** A fresh user per test, so tests do not see each other's files. */
async function newUser(): Promise<string> {
  const username = `s${++userCount}`;
  await createUser(t, username);
  return username;
}

async function folder(username: string, name: string): Promise<void> {
  const res = await api(t, 'folders.create', { username, folder: name });
  expect(res.status, res.text).toBe(201);
}

/** The hits of a search as `folder/name` (root files as `/name`). */
async function found(username: string, q: string): Promise<string[]> {
  const res = await api(t, 'files.search', { username, q });
  expect(res.status, res.text).toBe(200);
  return res.body.files.map((f) => `${f.folder ?? ''}/${f.name}`);
}

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

describe('files.search', () => {
  it('finds files at the root and in folders, ignoring case, in name order', async () => {
    const u = await newUser();
    await folder(u, 'Work');
    await folder(u, 'Photos');
    await upload(t, u, 'Report-2024.pdf', 'a');
    await upload(t, u, 'report.txt', 'bb', { folder: 'Work' });
    await upload(t, u, 'old REPORT.doc', 'c', { folder: 'Photos' });
    await upload(t, u, 'cat.jpg', 'd', { folder: 'Photos' });
    expect(await found(u, 'report')).toEqual(['Photos/old REPORT.doc', '/Report-2024.pdf', 'Work/report.txt']);
    expect(await found(u, 'REPORT.T')).toEqual(['Work/report.txt']);
    expect(await found(u, 'nothing')).toEqual([]);

    const res = await api(t, 'files.search', { username: u, q: 'cat' });
    expect(Object.keys(res.body)).toEqual(['files']);
    expectFileEntry(res.body.files[0]);
    expect(res.body.files[0]).toMatchObject({ name: 'cat.jpg', folder: 'Photos', size: 1, mimeType: 'image/jpeg' });
  });

  it('ignores accents on either side', async () => {
    const u = await newUser();
    await folder(u, 'Été');
    await upload(t, u, 'Résumé.pdf', 'a');
    await upload(t, u, 'été.txt', 'b', { folder: 'Été' });
    await upload(t, u, 'resume-old.pdf', 'c');
    expect(await found(u, 'resume')).toEqual(['/resume-old.pdf', '/Résumé.pdf']);
    expect(await found(u, 'RÉSUMÉ')).toEqual(['/resume-old.pdf', '/Résumé.pdf']);
    expect(await found(u, 'ÉTÉ')).toEqual(['Été/été.txt']);
    expect(await found(u, 'ete.')).toEqual(['Été/été.txt']);
  });

  it('pages with limit and offset and counts every hit in X-Total-Count', async () => {
    const u = await newUser();
    await folder(u, 'F');
    for (const name of ['log-1.txt', 'log-3.txt', 'other.txt']) await upload(t, u, name, 'x');
    for (const name of ['log-2.txt', 'log-4.txt']) await upload(t, u, name, 'x', { folder: 'F' });
    const page = await api(t, 'files.search', { username: u, q: 'log', limit: 2, offset: 1 });
    expect(page.status).toBe(200);
    expect(page.headers.get('X-Total-Count')).toBe('4');
    expect(page.body.files.map((f) => f.name)).toEqual(['log-2.txt', 'log-3.txt']);
    const last = await api(t, 'files.search', { username: u, q: 'log', limit: 10, offset: 3 });
    expect(last.body.files.map((f) => f.name)).toEqual(['log-4.txt']);
    expect(last.headers.get('X-Total-Count')).toBe('4');
  });

  it('searches only one folder with folder=, and answers 404 for a folder that does not exist', async () => {
    const u = await newUser();
    await folder(u, 'F');
    await folder(u, 'G');
    await upload(t, u, 'log-1.txt', 'x');
    await upload(t, u, 'log-2.txt', 'x', { folder: 'F' });
    await upload(t, u, 'log-3.txt', 'x', { folder: 'G' });
    const res = await api(t, 'files.search', { username: u, q: 'log', folder: 'F' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('X-Total-Count')).toBe('1');
    expect(res.body.files.map((f) => `${f.folder}/${f.name}`)).toEqual(['F/log-2.txt']);
    expectErrorBody(await apiLoose(t, 'files.search', { username: u, q: 'log', folder: 'H' }), 404, 'folder_not_found');
  });

  it('follows renames and deletes through the API', async () => {
    const u = await newUser();
    await folder(u, 'Docs');
    await upload(t, u, 'draft.txt', 'a', { folder: 'Docs' });
    await upload(t, u, 'notes.txt', 'b');
    expect(await found(u, 'draft')).toEqual(['Docs/draft.txt']);
    expect((await api(t, 'folders.files.rename', { username: u, folder: 'Docs', file: 'draft.txt', newname: 'Final.txt' })).status).toBe(
      201,
    );
    expect(await found(u, 'draft')).toEqual([]);
    expect(await found(u, 'final')).toEqual(['Docs/Final.txt']);
    expect((await api(t, 'files.rename', { username: u, file: 'notes.txt', newname: 'Crème.txt' })).status).toBe(201);
    expect(await found(u, 'creme')).toEqual(['/Crème.txt']);
    expect((await api(t, 'files.delete', { username: u, file: 'Crème.txt' })).status).toBe(200);
    expect(await found(u, 'creme')).toEqual([]);
  });

  // Another program writing in the storage folder, seen by the watcher: embedded only.
  onDisk(() => {
    it('follows files changed on disk (the watcher)', async () => {
      const u = await newUser();
      await folder(u, 'Disk');
      const dir = path.join(t.storageDir, u, 'Disk');
      await writeFile(path.join(dir, 'outside.txt'), 'hello');
      await vi.waitFor(async () => expect(await found(u, 'OUTSIDE')).toEqual(['Disk/outside.txt']), WAIT);
      await rename(path.join(dir, 'outside.txt'), path.join(dir, 'moved.txt'));
      await vi.waitFor(async () => expect(await found(u, 'side')).toEqual([]), WAIT);
      await vi.waitFor(async () => expect(await found(u, 'moved')).toEqual(['Disk/moved.txt']), WAIT);
      await rm(path.join(dir, 'moved.txt'));
      await vi.waitFor(async () => expect(await found(u, 'moved')).toEqual([]), WAIT);
    });
  });

  it('matches special characters literally, not as a pattern', async () => {
    const u = await newUser();
    await upload(t, u, 'a.b (1) [x]+.txt', 'a');
    await upload(t, u, 'axb.txt', 'b');
    await upload(t, u, '100%.txt', 'c');
    expect(await found(u, 'a.b')).toEqual(['/a.b (1) [x]+.txt']);
    expect(await found(u, '(1) [x]+')).toEqual(['/a.b (1) [x]+.txt']);
    expect(await found(u, '.*')).toEqual([]);
    expect(await found(u, '%')).toEqual(['/100%.txt']);
    expect(await found(u, '\\')).toEqual([]);
  });

  it('refuses an empty or too long q with 400', async () => {
    const u = await newUser();
    expectErrorBody(await apiLoose(t, 'files.search', { username: u, q: '' }), 400, 'missing_parameter');
    expectErrorBody(await apiLoose(t, 'files.search', { username: u }), 400, 'missing_parameter');
    const long = await apiLoose(t, 'files.search', { username: u, q: 'x'.repeat(201) });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/q must be 1–200 characters/);
    expect((await api(t, 'files.search', { username: u, q: 'x'.repeat(200) })).status).toBe(200);
  });

  it('searches a user’s own files only: another user’s name is 404 for a user, any user’s for the admin', async () => {
    const ana = await newUser();
    const bob = await newUser();
    await upload(t, bob, 'secret.txt', 'b');
    await upload(t, ana, 'mine-secret.txt', 'a');
    const session = await signIn(t, ana);
    const own = await api(t, 'files.search', { username: ana, q: 'secret' }, { key: null, headers: session.headers });
    expect(own.status, own.text).toBe(200);
    expect(own.body.files.map((f) => f.name)).toEqual(['mine-secret.txt']);
    expectErrorBody(
      await apiLoose(t, 'files.search', { username: bob, q: 'secret' }, { key: null, headers: session.headers }),
      404,
      'user_not_found',
    );
    expect(await found(bob, 'secret')).toEqual(['/secret.txt']);
    expectErrorBody(await apiLoose(t, 'files.search', { username: 'nobody', q: 'x' }), 404, 'user_not_found');
  });
});
