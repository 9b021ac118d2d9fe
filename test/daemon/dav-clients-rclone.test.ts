/**
 * Issue 26, "Proven with clients nobody here wrote": rclone's webdav backend (Debian `rclone`)
 * against a real daemon's `/dav/<user>/`, signed in with the user's password and with a personal
 * key as an app password. It copies a nested tree of mixed sizes up, checks it byte for byte,
 * renames and deletes inside it, sees the same through the API, and syncs it back down
 * (test/helpers/dav-trees.ts, rcloneRoundTrip). dav-clients-peers.test.ts runs the same round trip
 * against nginx and `rclone serve webdav`, the control for this one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey, makeUser, passwordOf, signIn } from '../helpers/accounts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { rclone, rcloneWebdav } from '../helpers/dav-clients.js';
import { TREE, rcloneRoundTrip } from '../helpers/dav-trees.js';

let t: TestDaemon;
let work: string;

beforeAll(async () => {
  t = await startTestDaemon();
  work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-dav-rclone-'));
});
afterAll(async () => {
  await t?.close();
  await rm(work, { recursive: true, force: true });
});

const davUrl = (username: string) => `${t.url}/dav/${username}/`;

/** The names the API lists in a folder of `username` (files only), sorted. */
async function apiFileNames(username: string, folder: string): Promise<string[]> {
  const res = await t.api('GET', '/api/folders/files', { username, folder });
  expect(res.status, res.text).toBe(200);
  return (res.body.files as { name: string }[]).map((f) => f.name).sort();
}

/** The names of the folders the API lists in a folder of `username` (the root when `folder` is ''), sorted. */
async function apiFolderNames(username: string, folder: string): Promise<string[]> {
  const res = await t.api('GET', '/api/folders', folder ? { username, folder } : { username });
  expect(res.status, res.text).toBe(200);
  return (res.body.folders as { name: string }[]).map((f) => f.name).sort();
}

/** The round trip, with the API asked after the upload and after the edits what the client did. */
function roundTripFor(username: string, pass: () => string) {
  return async () => {
    const remote = await rcloneWebdav(davUrl(username), username, pass());
    await rcloneRoundTrip(remote, path.join(work, username), {
      afterUpload: async () => {
        expect(await apiFolderNames(username, '')).toEqual(['docs', 'empty folder', 'old stuff']);
        expect(await apiFileNames(username, 'docs/b')).toEqual(['100% done.txt', 'draft v1.txt', 'issue #26.txt', 'twenty mib.bin']);
        expect(await apiFileNames(username, 'docs/b/c')).toEqual(['a+b=c.txt', 'deep note.txt', 'scratch.txt']);
        expect(await apiFileNames(username, 'docs')).toEqual(['naïve café ☕.txt', 'one mib.bin']);
        expect(await apiFileNames(username, 'empty folder')).toEqual([]);
      },
      afterEdits: async () => {
        expect(await apiFileNames(username, 'docs/b')).toEqual(['100% done.txt', 'final v2 ✓.txt', 'issue #26.txt', 'twenty mib.bin']);
        expect(await apiFileNames(username, 'docs/b/c')).toEqual(['a+b=c.txt', 'deep note.txt']);
        expect(await apiFolderNames(username, '')).toEqual(['docs', 'empty folder']);
        const purged = await t.api('GET', '/api/folders/files', { username, folder: TREE.toPurge.replace(/\/$/, '') });
        expect(purged.status, purged.text).toBe(404);
      },
    });
  };
}

describe('rclone against /dav/<user>/', () => {
  it(
    'copies a tree up, checks it byte for byte, renames and deletes in it and syncs it back, with the password',
    { timeout: 180_000 },
    async () => {
      await makeUser(t, 'rita');
      await roundTripFor('rita', () => passwordOf('rita'))();
    },
  );

  let appPassword = '';
  it('does the same with a personal write key as an app password', { timeout: 180_000 }, async () => {
    await makeUser(t, 'kim');
    appPassword = await makeKey(t, { cookie: await signIn(t, 'kim', passwordOf('kim')) }, 'rclone', 'write');
    await roundTripFor('kim', () => appPassword)();
  });

  it('is refused with a wrong password, and lists nothing', async () => {
    await makeUser(t, 'wanda');
    const remote = await rcloneWebdav(davUrl('wanda'), 'wanda', 'not-her-password');
    const run = await rclone(['lsf', remote], { allowFailure: true, timeoutMs: 60_000 });
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stderr).toMatch(/401|Unauthorized/i);
  });
});
