/**
 * files.move, files.copy and folders.rename (docs/explorer.md, "Move, copy, rename a folder"):
 * what lands where on disk and in the listings, shares that follow (the same link still
 * downloads), copies counted against the quota, every refusal a clear 4xx that changes
 * nothing, the event stream, and the same status codes for a DaneeCloud key.
 */
import { readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, apiLoose } from '../helpers/api.js';
import { embeddedRun, onDisk } from '../helpers/backend.js';
import { openPathsUnder } from '../helpers/open-fds.js';
import { createUser, snapshotState, startTestDaemon, storedBytes, upload, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';
import { expectErrorBody, expectFileEntry, expectFolder } from '../helpers/records.js';

let t: TestDaemon;
let n = 0;
const unique = (prefix: string) => `${prefix}${++n}`;

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

/** A new user with a folder `docs` and a file `a.txt` at the root. */
async function user(): Promise<string> {
  const username = unique('u');
  await createUser(t, username);
  expect((await api(t, 'folders.create', { username, folder: 'docs' })).status).toBe(201);
  await upload(t, username, 'a.txt', 'alpha');
  return username;
}

const diskPath = (username: string, ...rest: string[]) => path.join(t.storageDir, username, ...rest);
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );
/** A stored file's text: from the storage folder on an embedded daemon, downloaded elsewhere. */
const textOf = async (username: string, where: string) => (await storedBytes(t, username, where)).toString('utf8');
/** The storage folder's own checks (inodes, descriptors, the temp dir) run where there is one. */
const whenOnDisk = async (check: () => Promise<void>) => {
  if (embeddedRun) await check();
};
/** A change after the call under test, to know its events are all out: made by another program where a watcher sees it. */
const probe = (username: string) => (embeddedRun ? writeFile(diskPath(username, 'probe.txt'), 'p') : upload(t, username, 'probe.txt', 'p'));
const names = async (username: string, folder?: string) =>
  (await api(t, 'files.list', folder ? { username, folder } : { username })).body.files.map((f) => f.name);
/** File descriptors of this process (the daemon runs in it) open on something under `dir`, held directories aside. */
const fdsUnder = openPathsUnder;
const tokenOf = (shareUrl: string | null) => new URL(shareUrl ?? 'http://missing/').pathname.split('/')[2];

async function share(username: string, file: string, folder?: string): Promise<string> {
  const res = await api(t, 'files.share', { username, file, ...(folder ? { folder } : {}) });
  expect(res.status).toBe(201);
  return tokenOf(res.body.file.shareUrl);
}

/** Runs `call`, expects the error, and that nothing on disk or in db.json changed. */
async function refusedWithoutChange(status: number, code: string, call: () => Promise<{ status: number }>): Promise<void> {
  const before = await snapshotState(t);
  const res = await call();
  expectErrorBody(res as Parameters<typeof expectErrorBody>[0], status, code);
  expect(await snapshotState(t)).toEqual(before);
}

describe('files.move', () => {
  it('moves a root file into a folder and back: one file, same bytes, same date', async () => {
    const username = await user();
    const before = (await api(t, 'files.list', { username })).body.files.find((f) => f.name === 'a.txt')!.modifiedAt;
    const res = await api(t, 'files.move', { username, file: 'a.txt', to: 'docs' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['file', 'msg']);
    expectFileEntry(res.body.file);
    expect(res.body.file).toMatchObject({ name: 'a.txt', folder: 'docs', size: 5, shared: false });
    expect(res.body.file.modifiedAt).toBe(before);
    await whenOnDisk(async () => expect(await exists(diskPath(username, 'a.txt'))).toBe(false));
    expect(await textOf(username, 'docs/a.txt')).toBe('alpha');
    expect(await names(username)).toEqual([]);
    expect(await names(username, 'docs')).toEqual(['a.txt']);

    // `to` empty is the root, as absent is.
    const back = await t.api('POST', '/api/files/move', { username, file: 'a.txt', folder: 'docs', to: '' });
    expect(back.status).toBe(201);
    expect(back.body.file).toMatchObject({ name: 'a.txt', folder: null });
    expect(await names(username)).toEqual(['a.txt']);
    expect(await names(username, 'docs')).toEqual([]);
  });

  it('moves between two folders, and the usage stays the same', async () => {
    const username = await user();
    await api(t, 'folders.create', { username, folder: 'other' });
    await upload(t, username, 'b.bin', Buffer.alloc(3000), { folder: 'docs' });
    const usage = (await api(t, 'user.get', { username })).body.usage.usedBytes;
    const res = await api(t, 'files.move', { username, file: 'b.bin', folder: 'docs', to: 'other' });
    expect(res.status).toBe(201);
    expect(res.body.file).toMatchObject({ folder: 'other', size: 3000 });
    expect(await names(username, 'other')).toEqual(['b.bin']);
    expect(await names(username, 'docs')).toEqual([]);
    expect((await api(t, 'user.get', { username })).body.usage.usedBytes).toBe(usage);
    const folders = (await api(t, 'folders.list', { username })).body.folders;
    expect(folders.find((f) => f.name === 'other')).toMatchObject({ fileCount: 1, sizeBytes: 3000 });
    expect(folders.find((f) => f.name === 'docs')).toMatchObject({ fileCount: 0, sizeBytes: 0 });
  });

  it('keeps the share link: same token, and the link still downloads the file', async () => {
    const username = await user();
    const token = await share(username, 'a.txt');
    const res = await api(t, 'files.move', { username, file: 'a.txt', to: 'docs' });
    expect(res.body.file.shared).toBe(true);
    expect(tokenOf(res.body.file.shareUrl)).toBe(token);
    const link = await api(t, 'share.download', { token }, { key: null });
    expect(link.status).toBe(200);
    expect(link.text).toBe('alpha');
    // The share is stored at the new place: it survives a restart.
    await t.stop();
    await t.restart();
    expect((await api(t, 'share.download', { token }, { key: null })).text).toBe('alpha');
    // A new file under the old name is not shared.
    await upload(t, username, 'a.txt', 'new');
    expect((await api(t, 'files.list', { username })).body.files[0]).toMatchObject({ name: 'a.txt', shared: false });
  });

  it('answers 404 for a missing user, source folder, source file or target folder, changing nothing', async () => {
    const username = await user();
    await refusedWithoutChange(404, 'user_not_found', () => api(t, 'files.move', { username: 'nobody', file: 'a.txt', to: 'docs' }));
    await refusedWithoutChange(404, 'folder_not_found', () =>
      api(t, 'files.move', { username, file: 'a.txt', folder: 'nope', to: 'docs' }),
    );
    await refusedWithoutChange(404, 'file_not_found', () => api(t, 'files.move', { username, file: 'nope.txt', to: 'docs' }));
    await refusedWithoutChange(404, 'folder_not_found', () => api(t, 'files.move', { username, file: 'a.txt', to: 'nope' }));
  });

  it('answers 409 for a name taken at the target, the folder the file is in, a case twin, or a root folder of that name', async () => {
    const username = await user();
    await upload(t, username, 'a.txt', 'other', { folder: 'docs' });
    await upload(t, username, 'B.txt', 'b', { folder: 'docs' });
    await upload(t, username, 'b.txt', 'b');
    await api(t, 'folders.create', { username, folder: 'pics' });
    await upload(t, username, 'pics', 'a file named as the folder', { folder: 'docs' });
    await refusedWithoutChange(409, 'file_exists', () => api(t, 'files.move', { username, file: 'a.txt', to: 'docs' }));
    await refusedWithoutChange(409, 'file_exists', () => api(t, 'files.move', { username, file: 'a.txt' }));
    await refusedWithoutChange(409, 'file_exists', () => api(t, 'files.move', { username, file: 'a.txt', folder: 'docs', to: 'docs' }));
    await refusedWithoutChange(409, 'name_case_conflict', () => api(t, 'files.move', { username, file: 'b.txt', to: 'docs' }));
    await refusedWithoutChange(409, 'folder_exists', () => api(t, 'files.move', { username, file: 'pics', folder: 'docs' }));
    expect(await textOf(username, 'docs/a.txt')).toBe('other');
  });

  it('answers 400 for a missing or bad name, before any disk access', async () => {
    const username = await user();
    await refusedWithoutChange(400, 'missing_parameter', () => apiLoose(t, 'files.move', { username, to: 'docs' }));
    await refusedWithoutChange(400, 'invalid_parameter', () => apiLoose(t, 'files.move', { username, file: 'a.txt', to: '../x' }));
    await refusedWithoutChange(400, 'invalid_parameter', () => apiLoose(t, 'files.move', { username, file: 'a.txt', to: '..' }));
  });

  it('shows on the event stream as the file removed from one place and added at the other, once', async () => {
    const username = await user();
    const stream = await openEventStream(t.url, { 'API-Key': t.key });
    try {
      expect((await api(t, 'files.move', { username, file: 'a.txt', to: 'docs' })).status).toBe(201);
      // A file dropped in by another program afterwards: once the watcher announces it, it has looked at the move's paths too.
      await probe(username);
      const mine = () => stream.messages.filter((m) => m.data.username === username).map((m) => [m.event, m.data.folder, m.data.file]);
      await vi.waitFor(() => expect(mine()).toContainEqual(['file.added', null, 'probe.txt']));
      expect(mine()).toEqual([
        ['file.removed', null, 'a.txt'],
        ['file.added', 'docs', 'a.txt'],
        ['file.added', null, 'probe.txt'],
      ]);
    } finally {
      await stream.close();
    }
  });
});

describe('files.copy', () => {
  it('copies into a folder as a new, unshared file; the original keeps its bytes and its link', async () => {
    const username = await user();
    const token = await share(username, 'a.txt');
    const res = await api(t, 'files.copy', { username, file: 'a.txt', to: 'docs' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['file', 'msg']);
    expectFileEntry(res.body.file);
    expect(res.body.file).toMatchObject({ name: 'a.txt', folder: 'docs', size: 5, shared: false, shareUrl: null });
    expect(await textOf(username, 'docs/a.txt')).toBe('alpha');
    expect(await textOf(username, 'a.txt')).toBe('alpha');
    // Two files, not two names of one: changing the copy leaves the original alone.
    await whenOnDisk(async () =>
      expect((await stat(diskPath(username, 'a.txt'))).ino).not.toBe((await stat(diskPath(username, 'docs', 'a.txt'))).ino),
    );
    expect((await api(t, 'share.download', { token }, { key: null })).text).toBe('alpha');
    expect((await api(t, 'user.get', { username })).body.usage.usedBytes).toBe(10);
    await whenOnDisk(async () => expect(await readdir(path.join(t.dataDir, 'tmp'))).toEqual([]));
  });

  it('copies an empty file and a large one byte for byte, back to the root too', async () => {
    const username = await user();
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
    await upload(t, username, 'big.bin', big, { folder: 'docs' });
    await upload(t, username, 'empty.txt', '', { folder: 'docs' });
    expect((await api(t, 'files.copy', { username, file: 'big.bin', folder: 'docs' })).status).toBe(201);
    expect((await api(t, 'files.copy', { username, file: 'empty.txt', folder: 'docs' })).body.file).toMatchObject({ size: 0 });
    expect((await storedBytes(t, username, 'big.bin')).equals(big)).toBe(true);
    expect(await textOf(username, 'empty.txt')).toBe('');
    await whenOnDisk(() => vi.waitFor(async () => expect(await fdsUnder(t.storageDir)).toEqual([])));
  });

  it('answers 507 quota_exceeded when the copy would pass the quota, leaving nothing behind', async () => {
    const username = await user();
    const role = unique('small');
    await api(t, 'role.create', { name: role, maxStorage: 1, badge: 'https://example.com/b.png' });
    await api(t, 'user.role', { username, name: role });
    await upload(t, username, 'half.bin', Buffer.alloc(600 * 1024));
    await refusedWithoutChange(507, 'quota_exceeded', () => api(t, 'files.copy', { username, file: 'half.bin', to: 'docs' }));
    await whenOnDisk(async () => {
      expect(await readdir(path.join(t.dataDir, 'tmp'))).toEqual([]);
      // The source was opened to be copied, and is closed again.
      await vi.waitFor(async () => expect(await fdsUnder(t.storageDir)).toEqual([]));
    });
    // What fits is copied.
    expect((await api(t, 'files.copy', { username, file: 'a.txt', to: 'docs' })).status).toBe(201);
  });

  it('answers 404 and 409 as a move does, changing nothing', async () => {
    const username = await user();
    await upload(t, username, 'A.TXT', 'twin', { folder: 'docs' });
    await api(t, 'folders.create', { username, folder: 'pics' });
    await upload(t, username, 'pics', 'p', { folder: 'docs' });
    await refusedWithoutChange(404, 'user_not_found', () => api(t, 'files.copy', { username: 'nobody', file: 'a.txt', to: 'docs' }));
    await refusedWithoutChange(404, 'file_not_found', () => api(t, 'files.copy', { username, file: 'nope.txt', to: 'docs' }));
    await refusedWithoutChange(404, 'folder_not_found', () =>
      api(t, 'files.copy', { username, file: 'a.txt', folder: 'nope', to: 'docs' }),
    );
    await refusedWithoutChange(404, 'folder_not_found', () => api(t, 'files.copy', { username, file: 'a.txt', to: 'nope' }));
    await refusedWithoutChange(409, 'file_exists', () => api(t, 'files.copy', { username, file: 'a.txt' }));
    await refusedWithoutChange(409, 'name_case_conflict', () => api(t, 'files.copy', { username, file: 'a.txt', to: 'docs' }));
    await refusedWithoutChange(409, 'folder_exists', () => api(t, 'files.copy', { username, file: 'pics', folder: 'docs' }));
  });

  // A symlink another program puts in the storage folder: only an embedded daemon has one.
  onDisk(() => {
    it('refuses a source that is a symlink (never read through it)', async () => {
      const username = await user();
      await symlink('/etc/passwd', diskPath(username, 'docs', 'link.txt'));
      await t.api('POST', '/api/dash/rescan');
      await refusedWithoutChange(404, 'file_not_found', () => api(t, 'files.copy', { username, file: 'link.txt', folder: 'docs' }));
      await refusedWithoutChange(404, 'file_not_found', () => api(t, 'files.move', { username, file: 'link.txt', folder: 'docs' }));
    });
  });
});

describe('folders.rename', () => {
  it('renames a folder with its files; the shares inside follow (same tokens, links still download)', async () => {
    const username = await user();
    await upload(t, username, 'x.txt', 'ex', { folder: 'docs' });
    await upload(t, username, 'y.txt', 'why', { folder: 'docs' });
    const tx = await share(username, 'x.txt', 'docs');
    const ty = await share(username, 'y.txt', 'docs');
    const rootToken = await share(username, 'a.txt');
    const res = await api(t, 'folders.rename', { username, folder: 'docs', newname: 'papers' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['folder', 'msg']);
    expectFolder(res.body.folder);
    expect(res.body.folder).toMatchObject({ name: 'papers', fileCount: 2, sizeBytes: 5 });
    await whenOnDisk(async () => {
      expect(await exists(diskPath(username, 'docs'))).toBe(false);
      expect((await readdir(diskPath(username, 'papers'))).sort()).toEqual(['x.txt', 'y.txt']);
    });
    expect((await api(t, 'folders.list', { username })).body.folders.map((f) => f.name)).toEqual(['papers']);
    const files = (await api(t, 'files.list', { username, folder: 'papers' })).body.files;
    expect(files.map((f) => [f.name, f.folder, tokenOf(f.shareUrl)])).toEqual([
      ['x.txt', 'papers', tx],
      ['y.txt', 'papers', ty],
    ]);
    expect((await api(t, 'share.download', { token: tx }, { key: null })).text).toBe('ex');
    expect((await api(t, 'share.download', { token: ty }, { key: null })).text).toBe('why');
    expect((await api(t, 'share.download', { token: rootToken }, { key: null })).text).toBe('alpha');
    expectErrorBody(await api(t, 'folders.files', { username, folder: 'docs' }), 404, 'folder_not_found');
    // A folder made again under the old name starts empty and unshared.
    await api(t, 'folders.create', { username, folder: 'docs' });
    await upload(t, username, 'x.txt', 'new', { folder: 'docs' });
    expect((await api(t, 'files.list', { username, folder: 'docs' })).body.files[0].shared).toBe(false);
  });

  it('changes only the case of a name, and the same name is no change', async () => {
    const username = await user();
    await upload(t, username, 'x.txt', 'ex', { folder: 'docs' });
    const res = await api(t, 'folders.rename', { username, folder: 'docs', newname: 'Docs' });
    expect(res.status).toBe(201);
    await whenOnDisk(async () => expect(await readdir(diskPath(username))).toEqual(expect.arrayContaining(['Docs'])));
    expect(await names(username, 'Docs')).toEqual(['x.txt']);
    const same = await api(t, 'folders.rename', { username, folder: 'Docs', newname: 'Docs' });
    expect(same.status).toBe(201);
    expect(same.body.folder).toMatchObject({ name: 'Docs', fileCount: 1 });
  });

  it('answers 409 folder_exists for a folder or root file of the new name, name_case_conflict for a twin; nothing changes', async () => {
    const username = await user();
    await api(t, 'folders.create', { username, folder: 'other' });
    await api(t, 'folders.create', { username, folder: 'Pics' });
    await upload(t, username, 'x.txt', 'ex', { folder: 'docs' });
    await refusedWithoutChange(409, 'folder_exists', () => api(t, 'folders.rename', { username, folder: 'docs', newname: 'other' }));
    await refusedWithoutChange(409, 'folder_exists', () => api(t, 'folders.rename', { username, folder: 'docs', newname: 'a.txt' }));
    await refusedWithoutChange(409, 'name_case_conflict', () => api(t, 'folders.rename', { username, folder: 'docs', newname: 'pics' }));
    await refusedWithoutChange(409, 'name_case_conflict', () => api(t, 'folders.rename', { username, folder: 'docs', newname: 'A.TXT' }));
  });

  it('answers 404 for a missing user or folder, 400 for a bad name, changing nothing', async () => {
    const username = await user();
    await refusedWithoutChange(404, 'user_not_found', () => api(t, 'folders.rename', { username: 'nobody', folder: 'docs', newname: 'x' }));
    await refusedWithoutChange(404, 'folder_not_found', () => api(t, 'folders.rename', { username, folder: 'nope', newname: 'x' }));
    await refusedWithoutChange(400, 'missing_parameter', () => apiLoose(t, 'folders.rename', { username, folder: 'docs' }));
    await refusedWithoutChange(400, 'invalid_parameter', () => apiLoose(t, 'folders.rename', { username, folder: 'docs', newname: 'a/b' }));
  });

  it('is announced as one folder.moved event with the old name in from, not once per file (issue 25), and the watcher’s echo adds nothing', async () => {
    const username = await user();
    await upload(t, username, 'x.txt', 'ex', { folder: 'docs' });
    const stream = await openEventStream(t.url, { 'API-Key': t.key });
    try {
      expect((await api(t, 'folders.rename', { username, folder: 'docs', newname: 'papers' })).status).toBe(201);
      await probe(username);
      const mine = () =>
        stream.messages.filter((m) => m.data.username === username).map((m) => [m.event, m.data.folder, m.data.from, m.data.file]);
      await vi.waitFor(() => expect(mine()).toContainEqual(['file.added', null, undefined, 'probe.txt']));
      expect(mine()).toEqual([
        ['folder.moved', 'papers', 'docs', null],
        ['file.added', null, undefined, 'probe.txt'],
      ]);
    } finally {
      await stream.close();
    }
  });
});

describe('a signed-in user and a DaneeCloud key', () => {
  it('a user moves, copies and renames in their own storage; another user’s is a 404', async () => {
    const username = await user();
    const other = await user();
    const login = await api(t, 'auth.login', { username, password: 'password123' }, { key: null });
    const cookie = /nimbus_session=[^;]+/.exec(login.headers.get('Set-Cookie') ?? '')![0];
    const as = { key: null, headers: { Cookie: cookie, Origin: t.url } };
    expect((await api(t, 'files.copy', { username, file: 'a.txt', to: 'docs' }, as)).status).toBe(201);
    expect((await api(t, 'files.move', { username, file: 'a.txt', folder: 'docs', to: '' as string }, as)).status).toBe(409);
    expect((await api(t, 'folders.rename', { username, folder: 'docs', newname: 'mine' }, as)).status).toBe(201);
    await refusedWithoutChange(404, 'user_not_found', () => api(t, 'files.move', { username: other, file: 'a.txt', to: 'docs' }, as));
    await refusedWithoutChange(404, 'user_not_found', () => api(t, 'files.copy', { username: other, file: 'a.txt', to: 'docs' }, as));
    await refusedWithoutChange(404, 'user_not_found', () =>
      api(t, 'folders.rename', { username: other, folder: 'docs', newname: 'x' }, as),
    );
  });

  it('a DaneeCloud-dialect key gets the same statuses and bodies', async () => {
    const made = await t.api('POST', '/api/keys/create', { label: unique('bot'), scope: 'admin', dialect: 'daneecloud' });
    const as = { key: made.body.key as string };
    const username = await user();
    const move = await api(t, 'files.move', { username, file: 'a.txt', to: 'docs' }, as);
    expect(move.status).toBe(201);
    expect(move.body.file).toMatchObject({ name: 'a.txt', folder: 'docs' });
    expect((await api(t, 'files.copy', { username, file: 'a.txt', folder: 'docs' }, as)).status).toBe(201);
    expect((await api(t, 'files.copy', { username, file: 'a.txt', folder: 'docs' }, as)).status).toBe(409);
    expect((await api(t, 'files.move', { username, file: 'nope', to: 'docs' }, as)).status).toBe(404);
    expect((await api(t, 'folders.rename', { username, folder: 'docs', newname: 'd2' }, as)).status).toBe(201);
    expect((await api(t, 'folders.rename', { username, folder: 'docs', newname: 'd3' }, as)).status).toBe(404);
  });
});
