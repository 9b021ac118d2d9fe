/**
 * usage.get (docs/explorer.md, "Usage"): a user's files by kind, their trash and their quota;
 * and the one rule of kinds by MIME type (shared/file-kinds.ts) that the UI reads too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileKindOf } from '../../shared/file-kinds.js';
import { api, apiLoose, signIn } from '../helpers/api.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

const MIB = 1048576;
let t: TestDaemon;
let userCount = 0;

async function newUser(): Promise<string> {
  const username = `u${++userCount}`;
  await createUser(t, username);
  return username;
}

async function usage(username: string) {
  const res = await api(t, 'usage.get', { username });
  expect(res.status, res.text).toBe(200);
  return res.body.usage;
}

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

describe('usage.get', () => {
  it('is zero for a new user, with the role’s quota', async () => {
    expect(await usage(await newUser())).toEqual({
      usedBytes: 0,
      maxBytes: 128 * MIB,
      overQuota: false,
      fileBytes: 0,
      trashBytes: 0,
      versionBytes: 0,
      fileCount: 0,
      byKind: { images: 0, documents: 0, media: 0, other: 0 },
    });
  });

  it('sums files by kind across the root and every folder', async () => {
    const u = await newUser();
    await api(t, 'folders.create', { username: u, folder: 'Mixed' });
    await upload(t, u, 'photo.jpg', Buffer.alloc(10));
    await upload(t, u, 'icon.PNG', Buffer.alloc(5), { folder: 'Mixed' });
    await upload(t, u, 'paper.pdf', Buffer.alloc(20), { folder: 'Mixed' });
    await upload(t, u, 'notes.txt', Buffer.alloc(3));
    await upload(t, u, 'sheet.xlsx', Buffer.alloc(4));
    await upload(t, u, 'song.mp3', Buffer.alloc(30));
    await upload(t, u, 'clip.mp4', Buffer.alloc(40), { folder: 'Mixed' });
    await upload(t, u, 'archive.zip', Buffer.alloc(7));
    await upload(t, u, 'no-extension', Buffer.alloc(1));
    const got = await usage(u);
    expect(got.byKind).toEqual({ images: 15, documents: 27, media: 70, other: 8 });
    expect(got).toMatchObject({ fileBytes: 120, trashBytes: 0, usedBytes: 120, fileCount: 9 });
  });

  it('counts the trash in usedBytes everywhere, and out of fileBytes and the kinds', async () => {
    const u = await newUser();
    await upload(t, u, 'kept.txt', Buffer.alloc(100));
    await upload(t, u, 'binned.jpg', Buffer.alloc(50));
    await api(t, 'files.delete', { username: u, file: 'binned.jpg' });
    expect(await usage(u)).toMatchObject({
      usedBytes: 150,
      fileBytes: 100,
      trashBytes: 50,
      fileCount: 1,
      byKind: { images: 0, documents: 100, media: 0, other: 0 },
    });
    expect((await api(t, 'user.get', { username: u })).body.usage.usedBytes).toBe(150);
    const listed = (await api(t, 'user.all')).body.find((user) => user.username === u)!;
    expect(listed.usage.usedBytes).toBe(150);
    await api(t, 'trash.empty', { username: u });
    expect(await usage(u)).toMatchObject({ usedBytes: 100, trashBytes: 0 });
  });

  it('is over quota when the trash pushes it past the role’s limit (a smaller role given later)', async () => {
    const role = `small${userCount}`;
    expect((await api(t, 'role.create', { name: role, maxStorage: 1, badge: 'https://example.com/b.png' })).status).toBe(201);
    const u = await newUser();
    await upload(t, u, 'a.bin', Buffer.alloc(600 * 1024));
    await upload(t, u, 'b.bin', Buffer.alloc(600 * 1024));
    await api(t, 'files.delete', { username: u, file: 'b.bin' });
    await api(t, 'user.role', { username: u, name: role });
    expect(await usage(u)).toMatchObject({ usedBytes: 1200 * 1024, maxBytes: MIB, overQuota: true, fileBytes: 600 * 1024 });
    expect((await api(t, 'user.get', { username: u })).body.usage.overQuota).toBe(true);
  });

  it('answers a signed-in user for themselves, and 404 for anyone else', async () => {
    const u = await newUser();
    const other = await newUser();
    const me = await signIn(t, u);
    const own = await api(t, 'usage.get', { username: u }, { key: null, headers: me.headers });
    expect(own.status).toBe(200);
    expectErrorBody(await apiLoose(t, 'usage.get', { username: other }, { key: null, headers: me.headers }), 404, 'user_not_found');
    expectErrorBody(await apiLoose(t, 'usage.get', { username: 'no/such' }), 400);
  });
});

describe('fileKindOf', () => {
  it.each([
    ['image/jpeg', 'images'],
    ['image/svg+xml', 'images'],
    ['audio/mpeg', 'media'],
    ['video/mp4', 'media'],
    ['text/plain; charset=utf-8', 'documents'],
    ['Text/HTML', 'documents'],
    ['application/pdf', 'documents'],
    ['application/json', 'documents'],
    ['application/xml', 'documents'],
    ['application/rtf', 'documents'],
    ['application/epub+zip', 'documents'],
    ['application/msword', 'documents'],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'documents'],
    ['application/vnd.oasis.opendocument.spreadsheet', 'documents'],
    ['application/zip', 'other'],
    ['application/octet-stream', 'other'],
    ['', 'other'],
  ])('%s is %s', (mimeType, kind) => {
    expect(fileKindOf(mimeType)).toBe(kind);
  });
});
