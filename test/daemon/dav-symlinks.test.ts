/**
 * Issue 26: WebDAV follows no symlink at any depth (the disk's own concern: embedded only). A
 * directory three levels down swapped for a link to a directory outside the storage folder,
 * before a PROPFIND and in the middle of a PUT's body, lets nothing be read or written there.
 */
import http from 'node:http';
import { mkdir, mkdtemp, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeUser, passwordOf, show } from '../helpers/accounts.js';
import { onDisk } from '../helpers/backend.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { basic, dav } from '../helpers/dav.js';

onDisk(() => {
  let t: TestDaemon;
  let outside: string;
  const auth: [string, string] = ['nia', passwordOf('nia')];

  beforeAll(async () => {
    t = await startTestDaemon();
    await makeUser(t, 'nia');
    outside = await mkdtemp(path.join(os.tmpdir(), 'nimbus-outside-'));
    await mkdir(path.join(outside, 'c'));
    await writeFile(path.join(outside, 'c', 'secret.txt'), 'not yours');
  });
  afterAll(async () => {
    await t.close();
    await rm(outside, { recursive: true, force: true });
  });

  /** Makes a/b/c with a file in it through /dav/, then swaps a/b on disk for a link to `outside`. */
  async function treeWithLinkAt(top: string): Promise<void> {
    for (const p of [top, `${top}/b`, `${top}/b/c`]) expect((await dav(t, 'MKCOL', `/dav/nia/${p}`, { auth })).status).toBe(201);
    expect((await dav(t, 'PUT', `/dav/nia/${top}/b/c/mine.txt`, { auth, body: 'mine' })).status).toBe(201);
  }
  const swap = async (top: string) => {
    const b = path.join(t.storageDir, 'nia', top, 'b');
    await rename(b, `${b}-away`);
    await symlink(outside, b);
  };

  describe('a directory swapped for a symlink', () => {
    it('is never listed through, read through or written through by PROPFIND, GET or PUT', async () => {
      await treeWithLinkAt('p');
      await swap('p');
      const listing = await dav(t, 'PROPFIND', '/dav/nia/p/b/c/', { auth, headers: { Depth: '1' } });
      expect(listing.text).not.toContain('secret.txt');
      expect([207, 404]).toContain(listing.status);
      const read = await dav(t, 'GET', '/dav/nia/p/b/c/secret.txt', { auth });
      expect(read.status).toBe(404);
      const write = await dav(t, 'PUT', '/dav/nia/p/b/c/planted.txt', { auth, body: 'planted' });
      expect([404, 409], show(write)).toContain(write.status);
      expect(await readdir(path.join(outside, 'c'))).toEqual(['secret.txt']);
    });

    it('mid-PUT lands nothing outside: the body already streaming when the swap happens', async () => {
      await treeWithLinkAt('q');
      let status = 0;
      const done = new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: t.port,
            method: 'PUT',
            path: '/dav/nia/q/b/c/streamed.txt',
            headers: { Authorization: basic(...auth) },
          },
          (res) => {
            status = res.statusCode ?? 0;
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.write('first half, ');
        // Swapped while the body streams, then the rest sent.
        void swap('q').then(() => req.end('second half'));
      });
      await done;
      expect([404, 409]).toContain(status);
      expect(await readdir(path.join(outside, 'c'))).toEqual(['secret.txt']);
      await vi.waitFor(async () => {
        const listing = await dav(t, 'PROPFIND', '/dav/nia/q/', { auth, headers: { Depth: '1' } });
        expect(listing.text).not.toContain('secret');
      });
    });
  });
});
