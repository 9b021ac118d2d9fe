/**
 * Issue 26, "A real mount": a real daemon's `/dav/<user>/` mounted through the kernel with davfs2
 * (test/helpers/dav-mount.ts: root and /dev/fuse, which CI has; `use_locks` on, so every file
 * written is LOCKed and UNLOCKed as Windows and macOS do). `cp -r` of a tree in, `mv` of a
 * folder, `rm -r` of another, `diff -r` on the mounted drive; once unmounted, the API lists what
 * the mount did and rclone (another client) brings back the same bytes.
 * dav-clients-peers.test.ts runs the same mount against nginx and `rclone serve webdav`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeUser, passwordOf } from '../helpers/accounts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { rclone, rcloneWebdav } from '../helpers/dav-clients.js';
import { mountDav, unmountAll } from '../helpers/dav-mount.js';
import { MOUNT_MOVE, TREE, diffTrees, mountRoundTrip } from '../helpers/dav-trees.js';

let t: TestDaemon;
let work: string;

beforeAll(async () => {
  t = await startTestDaemon();
  work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-dav-mount-'));
});
// A test that timed out never reached its finally: its mount goes here, before the daemon stops.
afterEach(unmountAll);
afterAll(async () => {
  await unmountAll();
  await t?.close();
  await rm(work, { recursive: true, force: true });
});

async function listed(route: '/api/folders' | '/api/folders/files', username: string, folder: string): Promise<string[]> {
  const res = await t.api('GET', route, { username, folder });
  expect(res.status, `${route} ${folder}: ${res.text}`).toBe(200);
  const entries = (route === '/api/folders' ? res.body.folders : res.body.files) as { name: string }[];
  return entries.map((entry) => entry.name).sort();
}

describe('a davfs2 mount of /dav/<user>/', () => {
  it('takes cp -r, mv and rm -r, and the API and another client see the result', { timeout: 240_000 }, async () => {
    await makeUser(t, 'mona');
    const url = `${t.url}/dav/mona/`;
    const mount = await mountDav(url, 'mona', passwordOf('mona'));
    let expected: string;
    try {
      expected = await mountRoundTrip(mount.dir, path.join(work, 'mount'), { bigBytes: 4 * 2 ** 20 });
    } finally {
      await mount.unmount();
    }

    // davfs2 locked what it wrote (use_locks): the request log shows LOCKs granted and UNLOCKs done.
    await vi.waitFor(async () => {
      const requests = (await readFile(path.join(t.dataDir, 'logs', 'nimbus.log'), 'utf8'))
        .split('\n')
        .filter((l) => l.includes('/dav/mona/tree/'));
      expect(requests.some((line) => /"LOCK \S+ 20[01] /.test(line))).toBe(true);
      expect(requests.some((line) => /"UNLOCK \S+ 204 /.test(line))).toBe(true);
    });

    const moved = `tree/${MOUNT_MOVE.to}`;
    expect(await listed('/api/folders', 'mona', 'tree')).toEqual(['docs', 'empty folder']);
    expect(await listed('/api/folders', 'mona', 'tree/docs')).toEqual([path.posix.basename(MOUNT_MOVE.to)]);
    expect(await listed('/api/folders/files', 'mona', moved)).toEqual(['100% done.txt', 'draft v1.txt', 'issue #26.txt', 'twenty mib.bin']);
    expect(await listed('/api/folders/files', 'mona', `${moved}/c`)).toEqual(['a+b=c.txt', 'deep note.txt', 'scratch.txt']);
    const gone = await t.api('GET', '/api/folders/files', { username: 'mona', folder: `tree/${TREE.toPurge.replace(/\/$/, '')}` });
    expect(gone.status, gone.text).toBe(404);

    const back = path.join(work, 'back');
    await rclone(['sync', '--create-empty-src-dirs', `${await rcloneWebdav(url, 'mona', passwordOf('mona'))}tree`, back]);
    await diffTrees(expected, back);
  });
});
