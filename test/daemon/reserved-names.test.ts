/**
 * Names Nimbus keeps for its own files in the storage tree (issue 10, item 13): the
 * `.nimbus-storage` marker, hidden temporary names (`.nimbus…`) and the staging names of
 * a replacing move (`<file>.nimbus-<hex>`). None can be a user, folder or file name (400,
 * before any disk access, with the rule in the message), and such files on disk are
 * never listed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkAccountName, checkFileName } from '../../shared/validation.js';
import { onDisk } from '../helpers/backend.js';
import { createUser, snapshotState, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
  await upload(t, 'ana', 'a.txt', 'a');
  expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' })).status).toBe(201);
});
afterAll(() => t.close());

const RESERVED_ACCOUNT_NAMES = ['.nimbus-storage', '.nimbus', '.nimbus-trash', '.NIMBUS-STORAGE', '.Nimbus-tmp'];
const RESERVED_FILE_NAMES = [
  ...RESERVED_ACCOUNT_NAMES,
  '.nimbus-delete-0123abcd',
  'report.pdf.nimbus-0123456789ab',
  'a.txt.NIMBUS-ABCDEF012345',
];

function expectReserved(res: ApiResponse): void {
  expectErrorBody(res, 400, 'invalid_parameter');
  expect(res.body.error).toMatch(/reserved/);
}

async function expectRefusedWithoutChange(send: () => Promise<ApiResponse>): Promise<void> {
  const before = await snapshotState(t);
  expectReserved(await send());
  expect(await snapshotState(t)).toEqual(before);
}

describe('usernames', () => {
  it.each(RESERVED_ACCOUNT_NAMES)('refuses to create a user named %s (400, not 500)', async (username) => {
    await expectRefusedWithoutChange(() =>
      t.api('POST', '/api/user/create', { username, email: 'x@example.com', password: 'password123' }),
    );
  });

  it('refuses to rename a user to .nimbus-storage', async () => {
    await expectRefusedWithoutChange(() =>
      t.api('POST', '/api/user/edit', {
        username: 'ana',
        newusername: '.nimbus-storage',
        newemail: 'ana@example.com',
        newpassword: 'password123',
      }),
    );
  });

  it('answers 400 to a lookup of .nimbus-storage', async () => {
    expectReserved(await t.api('GET', '/api/user', { username: '.nimbus-storage' }));
  });

  it('still accepts other names with a leading dot or "nimbus" in them', async () => {
    for (const username of ['.hidden', 'nimbus', 'my.nimbus-storage']) await createUser(t, username);
  });
});

describe('folder and file names', () => {
  it.each(RESERVED_FILE_NAMES)('refuses a folder named %s', async (folder) => {
    await expectRefusedWithoutChange(() => t.api('POST', '/api/folders/create', { username: 'ana', folder }));
  });

  it.each(RESERVED_FILE_NAMES)('refuses an upload named %s', async (file) => {
    await expectRefusedWithoutChange(() => t.api('POST', '/api/files/upload', { username: 'ana', file }, { body: 'x' }));
    await expectRefusedWithoutChange(() =>
      t.api('POST', '/api/files/upload', { username: 'ana', folder: 'docs', file, overwrite: 'true' }, { body: 'x' }),
    );
  });

  it.each(RESERVED_FILE_NAMES)('refuses a rename to %s', async (newname) => {
    await expectRefusedWithoutChange(() => t.api('POST', '/api/files/rename', { username: 'ana', file: 'a.txt', newname }));
  });

  it('still accepts other dot files and names that merely mention nimbus', async () => {
    for (const file of ['.profile', 'nimbus-storage', 'notes.nimbus', 'a.nimbus-backup']) await upload(t, 'ana', file, 'ok');
  });

  // Files another program puts in the storage folder: only an embedded daemon has one.
  onDisk(() => {
    it('never lists files or folders with reserved names that are on disk', async () => {
      const root = path.join(t.storageDir, 'ana');
      await writeFile(path.join(root, '.nimbus-delete-1234'), 'hidden');
      await writeFile(path.join(root, 'b.txt.nimbus-00112233aabb'), 'staging');
      await mkdir(path.join(root, '.nimbus-trash'));
      await writeFile(path.join(root, '.nimbus-trash', 'gone.txt'), 'gone');
      await writeFile(path.join(root, 'docs', '.nimbus-storage'), 'marker copy');
      await writeFile(path.join(root, 'visible.txt'), 'seen');
      // The visible file shows the watcher has seen the directory; a rescan makes sure.
      await vi.waitFor(
        async () =>
          expect((await t.api('GET', '/api/files', { username: 'ana' })).body.files.map((f: { name: string }) => f.name)).toContain(
            'visible.txt',
          ),
        {
          timeout: 10_000,
          interval: 50,
        },
      );
      expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
      const rootFiles = (await t.api('GET', '/api/files', { username: 'ana' })).body.files.map((f: { name: string }) => f.name);
      expect(rootFiles.filter((f: string) => /nimbus-/i.test(f) && f !== 'nimbus-storage' && f !== 'a.nimbus-backup')).toEqual([]);
      const folders = (await t.api('GET', '/api/folders', { username: 'ana' })).body.folders.map((f: { name: string }) => f.name);
      expect(folders).toEqual(['docs']);
      const docs = (await t.api('GET', '/api/folders/files', { username: 'ana', folder: 'docs' })).body.files.map(
        (f: { name: string }) => f.name,
      );
      expect(docs).not.toContain('.nimbus-storage');
    });
  });
});

describe('the shared rules the UI shows', () => {
  it('refuses reserved names with a message that says why', () => {
    for (const name of RESERVED_ACCOUNT_NAMES)
      expect(checkAccountName(name)).toMatchObject({ ok: false, message: expect.stringMatching(/reserved/) });
    for (const name of RESERVED_FILE_NAMES)
      expect(checkFileName(name)).toMatchObject({ ok: false, message: expect.stringMatching(/reserved/) });
    expect(checkAccountName('.hidden').ok).toBe(true);
    expect(checkFileName('a.nimbus-backup').ok).toBe(true);
  });
});
