/**
 * A WebDAV download does not outlive what authorized it (issue 26; as the API's, issue 22): a
 * GET through /dav/ started with a personal key is cut off (socket destroyed, the client sees an
 * aborted answer) once the key is deleted, and one started with the user's password once that
 * password changes; the same download with nothing changed comes whole.
 */
import { truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedRun } from '../helpers/backend.js';
import { makeKey, makeUser, passwordOf, signIn } from '../helpers/accounts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startPaused as startPausedAt } from '../helpers/paused-download.js';

/** More than every buffer between the daemon's file and the test's socket: a paused download is still in it. */
const BIG = 64 << 20;
const USER = 'dave';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
  await makeUser(t, USER);
  if (embeddedRun) {
    const where = path.join(t.storageDir, USER, 'big.bin');
    await writeFile(where, '');
    await truncate(where, BIG);
    expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
  } else {
    expect((await t.api('POST', '/api/files/upload', { username: USER, file: 'big.bin' }, { body: Buffer.alloc(BIG) })).status).toBe(201);
  }
});
afterAll(() => t?.close());

const basic = (user: string, secret: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}` });

/** Starts a GET of /dav/dave/big.bin and stops reading after its first bytes. */
const startPaused = (headers: Record<string, string>) => startPausedAt(`${t.url}/dav/${USER}/big.bin`, headers);

describe('a WebDAV download', () => {
  it('comes whole when nothing changes', async () => {
    const transfer = await startPaused(basic(USER, passwordOf(USER)));
    expect(transfer.status).toBe(200);
    expect(await transfer.finish()).toEqual({ bytes: BIG, clean: true });
  });

  it('is cut off once the personal key it started with is deleted', async () => {
    const cookie = await signIn(t, USER, passwordOf(USER));
    const key = await makeKey(t, { cookie }, 'dav-app', 'read');
    const transfer = await startPaused(basic(USER, key));
    expect(transfer.status).toBe(200);
    expect((await t.api('POST', '/api/keys/delete', { label: 'dav-app', username: USER })).status).toBe(200);
    const { bytes, clean } = await transfer.finish();
    expect(clean, 'the answer is aborted, never a clean end').toBe(false);
    expect(bytes).toBeLessThan(BIG);
  });

  it('is cut off once the password it started with changes, and the old password is refused', async () => {
    const transfer = await startPaused(basic(USER, passwordOf(USER)));
    expect(transfer.status).toBe(200);
    const newPassword = 'Another-pw-5521!';
    const edit = await t.api('POST', '/api/user/edit', {
      username: USER,
      newusername: USER,
      newemail: `${USER}@example.com`,
      newpassword: newPassword,
    });
    expect(edit.status, edit.text).toBe(201);
    const { bytes, clean } = await transfer.finish();
    expect(clean, 'the answer is aborted, never a clean end').toBe(false);
    expect(bytes).toBeLessThan(BIG);
    expect(
      (await t.raw('PROPFIND', `/dav/${USER}/`, { key: null, headers: { ...basic(USER, passwordOf(USER)), Depth: '0' } })).status,
    ).toBe(401);
  });
});
