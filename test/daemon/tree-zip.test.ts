/**
 * Issue 25, zips of the tree (both backends): a middle folder's zip holds exactly its subtree,
 * each entry at its path below the folder (under the folder's own name, as a one-level
 * folder's zip always was), and the whole-storage zip holds every file of the tree at its
 * path. Entries are read back by Debian's unzip and Python's zipfile (test/helpers/zip.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';
import { readZip, sha256, type ZipEntryInfo } from '../helpers/zip.js';

let t: TestDaemon;
const username = 'ana';

/** Every file of the tree by its path, with bytes of its own. */
const TREE: Record<string, Buffer> = {
  'top.txt': Buffer.from('at the root\n'),
  'a/one.txt': Buffer.from('level one\n'.repeat(40)),
  'a/b/two.json': Buffer.from(JSON.stringify({ level: 2 })),
  'a/b/c/three.bin': Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 13) % 256)),
  'a/b/c/also.txt': Buffer.from('deepest\n'),
  'a/bb/beside.txt': Buffer.from('a sibling whose name starts like b\n'),
};
const FOLDERS = ['a/b/c', 'a/b/empty', 'a/bb'];

async function download(params: Record<string, string>): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${t.url}/api/folders/download?${new URLSearchParams({ username, ...params })}`, {
    headers: { 'API-Key': t.key },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function zipEntries(params: Record<string, string>): Promise<ZipEntryInfo[]> {
  const res = await download(params);
  expect(res.status, res.bytes.toString()).toBe(200);
  const entries = await readZip(res.bytes);
  for (const { name } of entries) {
    expect(name.startsWith('/'), name).toBe(false);
    expect(name.split('/'), name).not.toContain('..');
    expect(name, name).not.toContain('\\');
  }
  return entries;
}

/** Entry name → SHA-256 of its bytes (directories end with `/` and hash nothing). */
const byName = (entries: ZipEntryInfo[]) => Object.fromEntries(entries.map((e) => [e.name, e.sha256]));
const EMPTY = sha256('');

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, username);
  for (const folder of FOLDERS) {
    const res = await t.api('POST', '/api/folders/create', { username, folder, parents: 'true' });
    expect(res.status, res.text).toBe(201);
  }
  for (const [where, bytes] of Object.entries(TREE)) {
    const cut = where.lastIndexOf('/');
    const res = await upload(t, username, where.slice(cut + 1), bytes, cut < 0 ? {} : { folder: where.slice(0, cut) });
    expect(res.status, res.text).toBe(201);
  }
});
afterAll(() => t.close());

describe('folders.download over the tree', () => {
  it("zips a middle folder's whole subtree, each entry at its path below it, byte for byte", async () => {
    const res = await download({ folder: 'a/b' });
    expect(res.headers.get('content-disposition')).toContain('b.zip');
    const entries = await zipEntries({ folder: 'a/b' });
    expect(byName(entries)).toEqual({
      'b/': EMPTY,
      'b/c/': EMPTY,
      'b/empty/': EMPTY,
      'b/two.json': sha256(TREE['a/b/two.json']),
      'b/c/also.txt': sha256(TREE['a/b/c/also.txt']),
      'b/c/three.bin': sha256(TREE['a/b/c/three.bin']),
    });
    expect(entries).toHaveLength(6);
  });

  it('zips the deepest folder with its own files only', async () => {
    expect(byName(await zipEntries({ folder: 'a/b/c' }))).toEqual({
      'c/': EMPTY,
      'c/also.txt': sha256(TREE['a/b/c/also.txt']),
      'c/three.bin': sha256(TREE['a/b/c/three.bin']),
    });
  });

  it('holds every file and folder of the tree at its path in the whole-storage zip', async () => {
    const entries = await zipEntries({});
    const expected: Record<string, string> = Object.fromEntries(Object.entries(TREE).map(([where, bytes]) => [where, sha256(bytes)]));
    for (const folder of ['a', 'a/b', 'a/b/c', 'a/b/empty', 'a/bb']) expected[`${folder}/`] = EMPTY;
    expect(byName(entries)).toEqual(expected);
    expect(entries).toHaveLength(Object.keys(expected).length);
  });

  it('still zips named files of a deep folder at the top of the zip', async () => {
    const entries = await zipEntries({ folder: 'a/b/c', files: 'three.bin/also.txt' });
    expect(byName(entries)).toEqual({ 'three.bin': sha256(TREE['a/b/c/three.bin']), 'also.txt': sha256(TREE['a/b/c/also.txt']) });
  });

  it('answers 404 for a missing folder and 400 for a bad path', async () => {
    for (const [folder, status, code] of [
      ['a/nope', 404, 'folder_not_found'],
      ['a/b/c/nope', 404, 'folder_not_found'],
      ['a/../a', 400, 'invalid_parameter'],
      ['a//b', 400, 'invalid_parameter'],
      ['/a', 400, 'invalid_parameter'],
    ] as const) {
      const res = await t.api('GET', '/api/folders/download', { username, folder });
      expectErrorBody(res, status, code);
    }
  });
});
