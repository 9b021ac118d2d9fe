/**
 * A transfer does not outlive the standing it was authorized with (a follow-up to issue 22,
 * item 5): a download or zip of another user's files that an admin started is cut off (its
 * socket destroyed, so the client sees a short, aborted answer) once they are demoted, by
 * session and by personal key; an upload into another user's account fails and leaves
 * nothing. A transfer of the caller's own files goes on: they may still have it.
 */
import http from 'node:http';
import { readdir, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { COOKIE, makeKey, makeUser, passwordOf, setRole, signIn } from '../helpers/accounts.js';
import { slowUpload } from '../helpers/slow-upload.js';

const WAIT = { timeout: 10_000, interval: 20 };
/** More than every buffer between the daemon's file and the test's socket: a paused download is still in it. */
const BIG = 64 << 20;

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
  await makeUser(t, 'dave');
  await bigFile('dave', 'big.bin');
});
afterAll(async () => {
  await t.close();
});

/** Puts a sparse BIG file in `username`'s root and has the index take it in. */
async function bigFile(username: string, file: string): Promise<void> {
  const where = path.join(t.storageDir, username, file);
  await writeFile(where, '');
  await truncate(where, BIG);
  const res = await t.api('POST', '/api/dash/rescan');
  expect(res.status).toBe(200);
}

/** A user whose role is admin, signed in, with a personal key: the headers of each. */
async function adminUser(username: string): Promise<{ bySession: Record<string, string>; byKey: Record<string, string>; key: string }> {
  await makeUser(t, username);
  await setRole(t, username, 'admin');
  const cookie = await signIn(t, username, passwordOf(username));
  const key = await makeKey(t, { cookie }, `${username}-key`, 'write');
  return { bySession: { Cookie: `${COOKIE}=${cookie}` }, byKey: { 'API-Key': key }, key };
}

interface Paused {
  status: number;
  /** Reads the rest: how many bytes came in all, and whether the answer ended cleanly. */
  finish(): Promise<{ bytes: number; clean: boolean }>;
}

/** Starts a GET and stops reading it after its first bytes, while the body is still streaming. */
function startPaused(pathAndQuery: string, headers: Record<string, string>): Promise<Paused> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${t.url}${pathAndQuery}`, { headers }, (res) => {
      let bytes = 0;
      res.once('data', (chunk: Buffer) => {
        bytes += chunk.length;
        res.pause();
        const finish = () =>
          new Promise<{ bytes: number; clean: boolean }>((done) => {
            res.on('data', (c: Buffer) => (bytes += c.length));
            res.on('end', () => done({ bytes, clean: !res.aborted }));
            res.on('error', () => done({ bytes, clean: false }));
            res.resume();
          });
        resolve({ status: res.statusCode ?? 0, finish });
      });
    });
    req.on('error', reject);
  });
}

const download = (username: string, file: string) => `/api/files/download?username=${username}&file=${file}`;
const zip = (username: string) => `/api/folders/download?username=${username}`;

onDisk(() => {
  describe('a demotion', () => {
    it('cuts off a download of another user’s file, by session and by personal key', async () => {
      const { bySession, byKey } = await adminUser('ann');
      const transfers = [await startPaused(download('dave', 'big.bin'), bySession), await startPaused(download('dave', 'big.bin'), byKey)];
      for (const transfer of transfers) expect(transfer.status).toBe(200);
      await setRole(t, 'ann', 'user');
      for (const transfer of transfers) {
        const { bytes, clean } = await transfer.finish();
        expect(clean, 'the answer is aborted, never a clean end').toBe(false);
        expect(bytes).toBeLessThan(BIG);
      }
      // Asked afresh, the same download is refused now.
      expect((await t.api('GET', download('dave', 'big.bin'), undefined, { key: null, headers: byKey })).status).toBe(404);
    });

    it('cuts off a zip of another user’s folder', async () => {
      const { bySession, byKey } = await adminUser('abe');
      const transfers = [await startPaused(zip('dave'), bySession), await startPaused(zip('dave'), byKey)];
      await setRole(t, 'abe', 'user');
      for (const transfer of transfers) {
        const { bytes, clean } = await transfer.finish();
        expect(clean).toBe(false);
        expect(bytes).toBeLessThan(BIG);
      }
    });

    it('lets a download of the caller’s own file go on to its end', async () => {
      const { bySession, byKey } = await adminUser('ada');
      await bigFile('ada', 'mine.bin');
      const transfers = [await startPaused(download('ada', 'mine.bin'), bySession), await startPaused(download('ada', 'mine.bin'), byKey)];
      await setRole(t, 'ada', 'user');
      for (const transfer of transfers) expect(await transfer.finish()).toEqual({ bytes: BIG, clean: true });
    });

    it('fails an upload streaming into another user’s account and leaves nothing of it', async () => {
      const { key } = await adminUser('amy');
      const upload = slowUpload(t.port, key, { username: 'dave', file: 'from-amy.bin' }, 2 << 20);
      await upload.write(Buffer.alloc(1 << 20));
      await vi.waitFor(async () => expect(await readdir(path.join(t.dataDir, 'tmp'))).not.toEqual([]), WAIT);
      await setRole(t, 'amy', 'user');
      upload.end(Buffer.alloc(1 << 20));
      expect((await upload.response).status).not.toBe(201);
      const files = await t.api('GET', '/api/files', { username: 'dave' });
      expect(files.body.files.map((f: { name: string }) => f.name)).not.toContain('from-amy.bin');
      await vi.waitFor(async () => expect(await readdir(path.join(t.dataDir, 'tmp'))).toEqual([]), WAIT);
    });
  });
});
