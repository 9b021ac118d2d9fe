/**
 * A local program puts a named pipe (FIFO) where a file was, after the index saw the file
 * and before a download opens it. Opening a FIFO for reading waits for a writer: without
 * O_NONBLOCK each such download held one of libuv's four threads forever, and four of
 * them stopped every file operation of the daemon.
 */
import { execFileSync } from 'node:child_process';
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchFactory } from '../../daemon/index.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

/** The watcher stays silent, so the index keeps the file: the request reaches the disk. */
const silentWatch: WatchFactory = async () => ({ unsubscribe: async () => undefined });

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ watchFactory: silentWatch });
  expect((await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: 'password123' })).status).toBe(
    201,
  );
});
afterAll(() => t.close());

describe('a FIFO swapped in for a file', () => {
  it('answers 404 to every download at once, and the daemon keeps serving files', async () => {
    const upload = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'pipe.txt' }, { body: 'data' });
    expect(upload.status).toBe(201);
    const target = path.join(t.storageDir, 'ana', 'pipe.txt');
    await unlink(target);
    execFileSync('mkfifo', [target]);

    // More than libuv's thread pool (4): before the fix every thread waited on the pipe.
    const downloads = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.api('GET', '/api/files/download', { username: 'ana', file: 'pipe.txt' }, { signal: AbortSignal.timeout(10_000) }),
      ),
    );
    for (const res of downloads) expect(res.status).toBe(404);

    expect((await t.api('POST', '/api/files/upload', { username: 'ana', file: 'after.txt' }, { body: 'still here' })).status).toBe(201);
    const after = await t.api('GET', '/api/files/download', { username: 'ana', file: 'after.txt' });
    expect(after.text).toBe('still here');
  });
});
