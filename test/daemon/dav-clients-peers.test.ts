/**
 * The client helpers against WebDAV servers nobody here wrote (nginx's WebDAV module, `rclone
 * serve webdav`): the control for dav-clients-rclone and dav-clients-mount, so that when one of
 * those fails on Nimbus, the client and the harness are known good.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { rcloneWebdav } from '../helpers/dav-clients.js';
import { startNginxDav, startRcloneServe, type PeerServer } from '../helpers/dav-peers.js';
import { mountDav, unmountAll } from '../helpers/dav-mount.js';
import { diffTrees, mountRoundTrip, rcloneRoundTrip } from '../helpers/dav-trees.js';

const USER = 'peer-user';
const PASS = 'peer pass: with, odd chars';

/**
 * `rclone serve webdav` answers 423 Locked to one of two MKCOLs of the same folder at once (its
 * WebDAV library locks a resource while it is made): rclone's four transfers met that on a loaded
 * machine, creating a file's parent for two files at once. One transfer at a time against it.
 */
const PEER_FLAGS: Record<string, readonly string[]> = { 'rclone serve webdav': ['--transfers', '1'] };

for (const [name, start] of [
  ['nginx (WebDAV module)', startNginxDav],
  ['rclone serve webdav', startRcloneServe],
] as const) {
  describe(`the rclone round trip against ${name}`, () => {
    let work: string;
    let served: string;
    let peer: PeerServer;
    beforeAll(async () => {
      work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-dav-peer-'));
      served = path.join(work, 'served');
      await mkdir(served);
      peer = await start(served, USER, PASS);
    });
    afterAll(async () => {
      await unmountAll();
      await peer?.stop();
      await rm(work, { recursive: true, force: true });
    });

    it('copies the tree up, checks it, edits it and syncs it back', { timeout: 120_000 }, async () => {
      await rcloneRoundTrip(await rcloneWebdav(peer.url, USER, PASS), path.join(work, 'client'), { flags: PEER_FLAGS[name] });
    });

    it('takes cp -r, mv and rm -r on a davfs2 mount, and holds the result once unmounted', { timeout: 120_000 }, async () => {
      const mount = await mountDav(peer.url, USER, PASS);
      let expected: string;
      try {
        expected = await mountRoundTrip(mount.dir, path.join(work, 'mount'));
      } finally {
        await mount.unmount();
      }
      await diffTrees(expected, path.join(served, 'tree'));
    });
  });
}
