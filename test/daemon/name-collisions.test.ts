/**
 * Names that differ only in case (issue 10, item 12). On the case-insensitive disks of
 * macOS and Windows `Ana` and `ana` are one directory, so the API refuses to create the
 * second of two users, folders or files whose names differ only in case (409
 * name_case_conflict, naming the one that exists), even when both requests race. A
 * case-only rename of the same entry stays allowed, and files another program put on a
 * case-sensitive disk are still listed: only the API refuses.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { createUser, readDb, snapshotState, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

let t: TestDaemon;
let n = 0;
const unique = (prefix: string) => `${prefix}${++n}`;

/** 409 name_case_conflict whose message names the entry that is already there. */
function expectCaseConflict(res: ApiResponse, existing: string): void {
  expectErrorBody(res, 409, 'name_case_conflict');
  expect(res.body.error).toContain(`'${existing}'`);
  expect(res.body.error).toMatch(/differ only in case/);
}

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

describe('users', () => {
  it('refuses a user whose name differs only in case from another user, and creates nothing', async () => {
    const name = unique('ana');
    await createUser(t, name);
    const upper = name.toUpperCase();
    const before = (await snapshotState(t)).tree;
    expectCaseConflict(await t.api('POST', '/api/user/create', { username: upper, email: 'x@example.com', password: 'password123' }), name);
    expect((await t.api('GET', '/api/user', { username: upper })).status).toBe(404);
    expect((await snapshotState(t)).tree).toEqual(before);
  });

  it('refuses to rename a user to a name that differs only in case from another user', async () => {
    const ana = unique('ana');
    const bob = unique('bob');
    await createUser(t, ana);
    await createUser(t, bob);
    const res = await t.api('POST', '/api/user/edit', {
      username: bob,
      newusername: ana.toUpperCase(),
      newemail: 'b@example.com',
      newpassword: 'password123',
    });
    expectCaseConflict(res, ana);
    expect((await t.api('GET', '/api/user', { username: bob })).status).toBe(200);
  });

  it('allows a case-only rename of the same user', async () => {
    const ana = unique('ana');
    await createUser(t, ana);
    await upload(t, ana, 'kept.txt', 'kept');
    const newName = ana[0].toUpperCase() + ana.slice(1);
    const res = await t.api('POST', '/api/user/edit', {
      username: ana,
      newusername: newName,
      newemail: `${ana}@example.com`,
      newpassword: 'password123',
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.user.username).toBe(newName);
    const files = await t.api('GET', '/api/files', { username: newName });
    expect(files.body.files.map((f: { name: string }) => f.name)).toEqual(['kept.txt']);
  });

  it('lets exactly one of two racing creations of Ana and ana succeed, every time', async () => {
    for (let i = 0; i < 10; i++) {
      const name = unique('race');
      const [a, b] = await Promise.all(
        [name, name.toUpperCase()].map((username) =>
          t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: 'password123' }),
        ),
      );
      expect([a.status, b.status].sort(), `${a.text} ${b.text}`).toEqual([201, 409]);
      // The user's storage folder on disk; the user records where there is none.
      const stored =
        t.backend === 'embedded' ? await readdir(t.storageDir) : (await readDb(t)).users.map((u: { username: string }) => u.username);
      const dirs = stored.filter((d: string) => d.toLowerCase() === name);
      expect(dirs).toHaveLength(1);
    }
  });
});

describe('folders', () => {
  let user: string;
  beforeAll(async () => {
    user = unique('folderuser');
    await createUser(t, user);
  });

  it('refuses a folder whose name differs only in case from another folder', async () => {
    expect((await t.api('POST', '/api/folders/create', { username: user, folder: 'Photos' })).status).toBe(201);
    expectCaseConflict(await t.api('POST', '/api/folders/create', { username: user, folder: 'photos' }), 'Photos');
    const list = await t.api('GET', '/api/folders', { username: user });
    expect(list.body.folders.map((f: { name: string }) => f.name)).toEqual(['Photos']);
  });

  it('folds accented names too (É and é, composed or not)', async () => {
    expect((await t.api('POST', '/api/folders/create', { username: user, folder: 'Été' })).status).toBe(201);
    expectCaseConflict(await t.api('POST', '/api/folders/create', { username: user, folder: 'E\u0301TE\u0301' }), 'Été');
  });

  it('refuses a folder whose name differs only in case from a file at the user’s root (one directory)', async () => {
    await upload(t, user, 'notes', 'n');
    expectCaseConflict(await t.api('POST', '/api/folders/create', { username: user, folder: 'NOTES' }), 'notes');
  });

  it('lets exactly one of two racing creations succeed, every time', async () => {
    for (let i = 0; i < 10; i++) {
      const name = unique('racefolder');
      const [a, b] = await Promise.all(
        [name, name.toUpperCase()].map((folder) => t.api('POST', '/api/folders/create', { username: user, folder })),
      );
      expect([a.status, b.status].sort(), `${a.text} ${b.text}`).toEqual([201, 409]);
    }
  });
});

describe('files', () => {
  let user: string;
  beforeAll(async () => {
    user = unique('fileuser');
    await createUser(t, user);
    expect((await t.api('POST', '/api/folders/create', { username: user, folder: 'docs' })).status).toBe(201);
  });

  it('refuses an upload whose name differs only in case from a file in the same directory, with or without overwrite', async () => {
    await upload(t, user, 'Report.pdf', 'original');
    const body = { body: 'other' };
    expectCaseConflict(await t.api('POST', '/api/files/upload', { username: user, file: 'report.pdf' }, body), 'Report.pdf');
    // On a case-insensitive disk this would replace the other file: still a 409.
    expectCaseConflict(
      await t.api('POST', '/api/files/upload', { username: user, file: 'REPORT.PDF', overwrite: 'true' }, body),
      'Report.pdf',
    );
    const back = await t.api('GET', '/api/files/download', { username: user, file: 'Report.pdf' });
    expect(back.text).toBe('original');
    const list = await t.api('GET', '/api/files', { username: user });
    expect(list.body.files.map((f: { name: string }) => f.name).filter((f: string) => f.toLowerCase() === 'report.pdf')).toEqual([
      'Report.pdf',
    ]);
  });

  it('still overwrites the exact same name', async () => {
    await upload(t, user, 'same.txt', 'one');
    await upload(t, user, 'same.txt', 'two', { overwrite: 'true' });
    expect((await t.api('GET', '/api/files/download', { username: user, file: 'same.txt' })).text).toBe('two');
  });

  it('refuses an upload at the root whose name differs only in case from a folder', async () => {
    expectCaseConflict(await t.api('POST', '/api/files/upload', { username: user, file: 'DOCS' }, { body: 'x' }), 'docs');
  });

  it('refuses an upload into a folder whose name differs only in case from a file there', async () => {
    await upload(t, user, 'Plan.txt', 'plan', { folder: 'docs' });
    expectCaseConflict(
      await t.api('POST', '/api/files/upload', { username: user, folder: 'docs', file: 'plan.TXT' }, { body: 'x' }),
      'Plan.txt',
    );
  });

  it('refuses a rename onto a name that differs only in case from another file', async () => {
    await upload(t, user, 'a.txt', 'a');
    await upload(t, user, 'B.txt', 'b');
    expectCaseConflict(await t.api('POST', '/api/files/rename', { username: user, file: 'a.txt', newname: 'b.txt' }), 'B.txt');
    await upload(t, user, 'c.txt', 'c', { folder: 'docs' });
    expectCaseConflict(
      await t.api('POST', '/api/folders/files/rename', { username: user, folder: 'docs', file: 'c.txt', newname: 'PLAN.txt' }),
      'Plan.txt',
    );
    expect((await t.api('GET', '/api/files/download', { username: user, file: 'B.txt' })).text).toBe('b');
  });

  it('allows a case-only rename of the same file', async () => {
    await upload(t, user, 'lower.txt', 'l');
    const res = await t.api('POST', '/api/files/rename', { username: user, file: 'lower.txt', newname: 'LOWER.txt' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.file.name).toBe('LOWER.txt');
    expect((await t.api('GET', '/api/files/download', { username: user, file: 'LOWER.txt' })).text).toBe('l');
  });

  it('lets exactly one of two racing uploads of Name and name succeed, every time', async () => {
    for (let i = 0; i < 10; i++) {
      const name = unique('race-file');
      const [a, b] = await Promise.all(
        [name, name.toUpperCase()].map((file) =>
          t.api('POST', '/api/files/upload', { username: user, folder: 'docs', file, overwrite: 'true' }, { body: file }),
        ),
      );
      expect([a.status, b.status].sort(), `${a.text} ${b.text}`).toEqual([201, 409]);
    }
  });

  it('lets exactly one of a racing upload and rename onto names that differ only in case succeed', async () => {
    for (let i = 0; i < 10; i++) {
      const source = unique('src');
      const target = unique('target');
      await upload(t, user, source, 's');
      const [renamed, uploaded] = await Promise.all([
        t.api('POST', '/api/files/rename', { username: user, file: source, newname: target }),
        t.api('POST', '/api/files/upload', { username: user, file: target.toUpperCase() }, { body: 'u' }),
      ]);
      expect([renamed.status, uploaded.status].sort(), `${renamed.text} ${uploaded.text}`).toEqual([201, 409]);
    }
  });

  // Files another program made in the storage folder: only an embedded daemon has one.
  onDisk(() => {
    it('still lists files another program made that differ only in case (the disk is the truth)', async () => {
      const dir = path.join(t.storageDir, user, 'docs');
      await writeFile(path.join(dir, 'dropped.txt'), 'lower');
      await writeFile(path.join(dir, 'DROPPED.txt'), 'upper');
      // A case-insensitive disk keeps one file: nothing to check there.
      if ((await readdir(dir)).filter((f) => f.toLowerCase() === 'dropped.txt').length < 2) return;
      await vi.waitFor(
        async () => {
          const list = await t.api('GET', '/api/folders/files', { username: user, folder: 'docs' });
          expect(
            list.body.files
              .map((f: { name: string }) => f.name)
              .filter((f: string) => f.toLowerCase() === 'dropped.txt')
              .sort(),
          ).toEqual(['DROPPED.txt', 'dropped.txt']);
        },
        { timeout: 10_000, interval: 50 },
      );
      // Either one can still be overwritten and renamed by its own name.
      await upload(t, user, 'dropped.txt', 'new', { folder: 'docs', overwrite: 'true' });
      expect((await t.api('GET', '/api/files/download', { username: user, folder: 'docs', file: 'DROPPED.txt' })).text).toBe('upper');
      // A third spelling is refused, naming one of them.
      const res = await t.api('POST', '/api/files/upload', { username: user, folder: 'docs', file: 'Dropped.txt' }, { body: 'x' });
      expectErrorBody(res, 409, 'name_case_conflict');
    });
  });

  // Folders another program made in the storage folder: only an embedded daemon has one.
  onDisk(() => {
    it('refuses a folder other programs made twice in different case only through the API (both are listed)', async () => {
      const root = path.join(t.storageDir, user);
      await mkdir(path.join(root, 'Music'));
      await mkdir(path.join(root, 'music'));
      if ((await readdir(root)).filter((f) => f.toLowerCase() === 'music').length < 2) return;
      await vi.waitFor(
        async () => {
          const list = await t.api('GET', '/api/folders', { username: user });
          expect(
            list.body.folders
              .map((f: { name: string }) => f.name)
              .filter((f: string) => f.toLowerCase() === 'music')
              .sort(),
          ).toEqual(['Music', 'music']);
        },
        { timeout: 10_000, interval: 50 },
      );
      expectErrorBody(await t.api('POST', '/api/folders/create', { username: user, folder: 'MUSIC' }), 409, 'name_case_conflict');
    });
  });
});
