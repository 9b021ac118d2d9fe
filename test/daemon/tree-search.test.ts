/**
 * Issue 25, search over the tree (both backends): a file three levels down is found with its
 * folder path, and `folder=P` limits a search to P and everything below it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, snapshotState, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody, expectFileEntry } from '../helpers/records.js';

let t: TestDaemon;
const ana = { username: 'ana' };

/** The hits of a search as `folder/name` (root files as `/name`), with X-Total-Count. */
async function found(params: Record<string, string>): Promise<{ hits: string[]; total: string | null }> {
  const res = await t.api('GET', '/api/files/search', { ...ana, ...params });
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.body)).toEqual(['files']);
  for (const file of res.body.files) expectFileEntry(file);
  return {
    hits: res.body.files.map((f: { folder: string | null; name: string }) => `${f.folder ?? ''}/${f.name}`),
    total: res.headers.get('x-total-count'),
  };
}

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
  const made = await t.api('POST', '/api/folders/create', { ...ana, folder: 'photos/2024/june', parents: 'true' });
  expect(made.status, made.text).toBe(201);
  expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'photosets' })).status).toBe(201);
  for (const [folder, file] of [
    [null, 'beach-root.jpg'],
    ['photos', 'beach-top.jpg'],
    ['photos/2024', 'beach-mid.jpg'],
    ['photos/2024/june', 'beach-deep.jpg'],
    ['photos/2024/june', 'sunset.jpg'],
    ['photosets', 'beach-set.jpg'],
  ] as const) {
    const res = await upload(t, 'ana', file, file, folder === null ? {} : { folder });
    expect(res.status, res.text).toBe(201);
  }
});
afterAll(() => t.close());

describe('files.search over the tree', () => {
  it('finds a file three levels down with its folder path', async () => {
    const res = await t.api('GET', '/api/files/search', { ...ana, q: 'SUNSET' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.files).toHaveLength(1);
    expect(res.body.files[0]).toMatchObject({ name: 'sunset.jpg', folder: 'photos/2024/june', size: 10 });
  });

  it('covers every depth when no folder is given, as before', async () => {
    expect(await found({ q: 'beach' })).toEqual({
      hits: [
        'photos/2024/june/beach-deep.jpg',
        'photos/2024/beach-mid.jpg',
        '/beach-root.jpg',
        'photosets/beach-set.jpg',
        'photos/beach-top.jpg',
      ],
      total: '5',
    });
  });

  it('folder=P limits the search to P and everything below it', async () => {
    expect(await found({ q: 'beach', folder: 'photos' })).toEqual({
      hits: ['photos/2024/june/beach-deep.jpg', 'photos/2024/beach-mid.jpg', 'photos/beach-top.jpg'],
      total: '3',
    });
    expect(await found({ q: 'beach', folder: 'photos/2024' })).toEqual({
      hits: ['photos/2024/june/beach-deep.jpg', 'photos/2024/beach-mid.jpg'],
      total: '2',
    });
    expect(await found({ q: 'beach', folder: 'photos/2024/june' })).toEqual({ hits: ['photos/2024/june/beach-deep.jpg'], total: '1' });
    // A sibling whose name starts like P's is not below P.
    expect(await found({ q: 'beach', folder: 'photosets' })).toEqual({ hits: ['photosets/beach-set.jpg'], total: '1' });
    expect(await found({ q: 'sunset', folder: 'photosets' })).toEqual({ hits: [], total: '0' });
  });

  it('pages a limited search as it pages a whole one', async () => {
    const res = await t.api('GET', '/api/files/search', { ...ana, q: 'beach', folder: 'photos', offset: '1', limit: '1' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('3');
    expect(res.body.files.map((f: { name: string }) => f.name)).toEqual(['beach-mid.jpg']);
  });

  it('sees folders made, moved, renamed and deleted, and files added, since the last search', async () => {
    const post = async (route: string, params: Record<string, string>) => {
      const res = await t.api('POST', route, { ...ana, ...params });
      expect(res.status, `${route}: ${res.text}`).toBeLessThan(300);
    };
    // Searched once, whole and within a subtree, so what a search keeps between calls exists.
    expect((await found({ q: 'kept' })).hits).toEqual([]);
    expect((await found({ q: 'kept', folder: 'photos' })).hits).toEqual([]);
    await post('/api/folders/create', { folder: 'photos/2024/june/later/deeper', parents: 'true' });
    expect((await upload(t, 'ana', 'kept-1.txt', 'x', { folder: 'photos/2024/june/later/deeper' })).status).toBe(201);
    expect((await found({ q: 'kept' })).hits).toEqual(['photos/2024/june/later/deeper/kept-1.txt']);
    expect((await found({ q: 'kept', folder: 'photos' })).hits).toEqual(['photos/2024/june/later/deeper/kept-1.txt']);
    // A file into a folder already walked: no folder changed shape.
    expect((await upload(t, 'ana', 'kept-2.txt', 'x', { folder: 'photos/2024' })).status).toBe(201);
    expect((await found({ q: 'kept', folder: 'photos' })).hits).toEqual([
      'photos/2024/june/later/deeper/kept-1.txt',
      'photos/2024/kept-2.txt',
    ]);
    await post('/api/folders/move', { folder: 'photos/2024/june/later', to: 'photosets' });
    expect((await found({ q: 'kept-1' })).hits).toEqual(['photosets/later/deeper/kept-1.txt']);
    expect((await found({ q: 'kept-1', folder: 'photos' })).hits).toEqual([]);
    await post('/api/folders/rename', { folder: 'photosets/later', newname: 'afterwards' });
    expect((await found({ q: 'kept-1', folder: 'photosets' })).hits).toEqual(['photosets/afterwards/deeper/kept-1.txt']);
    await post('/api/folders/delete', { folder: 'photosets/afterwards' });
    expect((await found({ q: 'kept' })).hits).toEqual(['photos/2024/kept-2.txt']);
  });

  it('answers 404 for a folder that does not exist and 400 for a bad path, changing nothing', async () => {
    const before = await snapshotState(t);
    expectErrorBody(await t.api('GET', '/api/files/search', { ...ana, q: 'beach', folder: 'photos/2025' }), 404, 'folder_not_found');
    expectErrorBody(await t.api('GET', '/api/files/search', { ...ana, q: 'beach', folder: 'nope' }), 404, 'folder_not_found');
    for (const bad of ['photos/../photos', 'photos//2024', '/photos', 'photos/', 'photos\\2024', 'photos/./2024']) {
      expectErrorBody(await t.api('GET', '/api/files/search', { ...ana, q: 'beach', folder: bad }), 400, 'invalid_parameter');
    }
    expect(await snapshotState(t)).toEqual(before);
  });
});
