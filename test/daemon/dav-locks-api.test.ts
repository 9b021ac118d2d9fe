/**
 * The API honours WebDAV's locks (docs/webdav.md, "Locks and properties"): a lock made through
 * the service makes every write it forbids a 423 `locked` through the API, which never submits
 * a token, and changes nothing; reads go on; the writes pass again once the lock is removed or
 * has expired. Both backends; with two daemons on one database, a lock taken through one is
 * honoured by the other.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NimbusContext } from '../../daemon/context.js';
import { contextOf } from '../../daemon/daemon.js';
import { createLock, locksCovering, removeLock, type LockRequest } from '../../daemon/services/dav-locks.js';
import { embeddedRun } from '../helpers/backend.js';
import { createUser, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;
let n = 0;
const WAIT = { timeout: 15_000, interval: 50 };

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

const nimbus = (): NimbusContext => contextOf(t.daemon);

/** A new user holding `docs/a.txt` ("original"), `docs/sub/b.txt`, `other/` and `top.txt`. */
async function newUser(): Promise<string> {
  const username = `a${++n}`;
  await createUser(t, username);
  for (const folder of ['docs/sub', 'other']) {
    expect((await t.api('POST', '/api/folders/create', { username, folder, parents: 'true' })).status).toBe(201);
  }
  await upload(t, username, 'a.txt', 'original', { folder: 'docs' });
  await upload(t, username, 'b.txt', 'b', { folder: 'docs/sub' });
  await upload(t, username, 'top.txt', 'top');
  return username;
}

const lock = (username: string, path: string, depth: '0' | 'infinity', timeoutSeconds = 600) =>
  createLock(nimbus(), { username, path, depth, scope: 'exclusive', owner: '', timeoutSeconds } satisfies LockRequest);

const post = (route: string, params: Record<string, string>, body?: string) =>
  t.api('POST', route, params, body === undefined ? {} : { body });

function expectLocked(res: ApiResponse, what: string): void {
  expect(res.status, `${what}: ${res.text}`).toBe(423);
  expect(res.body.code, what).toBe('locked');
}

/** What the user's files are (names and the locked file's bytes): a refused write changes none of it. */
async function stateOf(username: string): Promise<string> {
  const folders = await t.api('GET', '/api/folders', { username, folder: 'docs' });
  const root = await t.api('GET', '/api/files', { username });
  const docs = await t.api('GET', '/api/folders/files', { username, folder: 'docs' });
  const bytes = await t.api('GET', '/api/files/download', { username, folder: 'docs', file: 'a.txt' });
  return JSON.stringify([
    folders.body,
    root.body.files.map((f: { name: string }) => f.name),
    docs.body.files.map((f: { name: string }) => f.name),
    bytes.text,
  ]);
}

describe('a lock on a file', () => {
  it('makes upload over it, rename, move, delete and its folder’s delete, move and rename 423', async () => {
    const username = await newUser();
    await lock(username, 'docs/a.txt', '0');
    const before = await stateOf(username);
    const file = { username, folder: 'docs', file: 'a.txt' };
    expectLocked(await post('/api/files/upload', { ...file, overwrite: 'true' }, 'changed'), 'upload over it');
    expectLocked(await post('/api/files/rename', { ...file, newname: 'b.txt' }), 'rename');
    expectLocked(await post('/api/files/move', { ...file, to: 'other' }), 'move away');
    expectLocked(await post('/api/files/delete', file), 'delete to the trash');
    expectLocked(await post('/api/files/delete', { ...file, permanent: 'true' }), 'delete for good');
    expectLocked(await post('/api/folders/delete', { username, folder: 'docs' }), 'folder delete');
    expectLocked(await post('/api/folders/delete', { username, folder: 'docs', permanent: 'true' }), 'folder delete for good');
    expectLocked(await post('/api/folders/move', { username, folder: 'docs', to: 'other' }), 'folder move');
    expectLocked(await post('/api/folders/rename', { username, folder: 'docs', newname: 'papers' }), 'folder rename');
    expect(await stateOf(username)).toBe(before);
  });

  it('lets reads and writes beside it pass', async () => {
    const username = await newUser();
    await lock(username, 'docs/a.txt', '0');
    expect((await t.api('GET', '/api/files/download', { username, folder: 'docs', file: 'a.txt' })).text).toBe('original');
    expect((await post('/api/files/upload', { username, folder: 'docs', file: 'new.txt' }, 'n')).status).toBe(201);
    expect((await post('/api/files/copy', { username, folder: 'docs', file: 'a.txt', to: 'other' })).status).toBe(201);
    expect((await post('/api/folders/rename', { username, folder: 'docs/sub', newname: 'inner' })).status).toBe(201);
    expect((await post('/api/files/share', { username, folder: 'docs', file: 'a.txt' })).status).toBe(201);
  });

  it('blocks a new file under a locked name that does not exist yet', async () => {
    const username = await newUser();
    await lock(username, 'docs/reserved.txt', '0');
    expectLocked(await post('/api/files/upload', { username, folder: 'docs', file: 'reserved.txt' }, 'x'), 'upload');
    expectLocked(await post('/api/folders/create', { username, folder: 'docs/reserved.txt' }), 'folder of that name');
  });
});

describe('a lock on a folder', () => {
  it('with depth 0 refuses new members (upload, create, move in or out, copy in, restore) but not edits of one', async () => {
    const username = await newUser();
    await upload(t, username, 'gone.txt', 'g', { folder: 'docs' });
    expect((await post('/api/files/delete', { username, folder: 'docs', file: 'gone.txt' })).status).toBe(200);
    const trashed = (await t.api('GET', '/api/trash', { username })).body.items[0].id as string;
    await lock(username, 'docs', '0');
    const before = await stateOf(username);
    expectLocked(await post('/api/files/upload', { username, folder: 'docs', file: 'new.txt' }, 'n'), 'upload of a new file');
    expectLocked(await post('/api/folders/create', { username, folder: 'docs/newdir' }), 'create');
    expectLocked(await post('/api/files/move', { username, file: 'top.txt', to: 'docs' }), 'move in');
    expectLocked(await post('/api/files/move', { username, folder: 'docs', file: 'a.txt', to: 'other' }), 'move out');
    expectLocked(await post('/api/files/copy', { username, file: 'top.txt', to: 'docs' }), 'copy in');
    expectLocked(await post('/api/folders/copy', { username, folder: 'other', to: 'docs' }), 'folder copy in');
    expectLocked(await post('/api/folders/move', { username, folder: 'other', to: 'docs' }), 'folder move in');
    expectLocked(await post('/api/files/rename', { username, folder: 'docs', file: 'a.txt', newname: 'z.txt' }), 'rename within');
    expectLocked(await post('/api/trash/restore', { username, id: trashed }), 'restore into it');
    expect(await stateOf(username)).toBe(before);
    // An edit of a member is not a change of the folder's members; its subfolders are not locked.
    expect((await post('/api/files/upload', { username, folder: 'docs', file: 'a.txt', overwrite: 'true' }, 'edited')).status).toBe(201);
    expect((await post('/api/files/upload', { username, folder: 'docs/sub', file: 'c.txt' }, 'c')).status).toBe(201);
  });

  it('with depth infinity refuses an upload three levels below it, and passes again once removed', async () => {
    const username = await newUser();
    expect((await post('/api/folders/create', { username, folder: 'docs/sub/x/y', parents: 'true' })).status).toBe(201);
    const held = await lock(username, 'docs', 'infinity');
    const deep = { username, folder: 'docs/sub/x/y', file: 'deep.txt' };
    expectLocked(await post('/api/files/upload', deep, 'deep'), 'upload three levels below');
    expectLocked(await post('/api/files/upload', { username, folder: 'docs/sub', file: 'b.txt', overwrite: 'true' }, 'b2'), 'edit below');
    expectLocked(await post('/api/folders/delete', { username, folder: 'docs/sub/x' }), 'delete below');
    await removeLock(nimbus(), username, 'docs', held.token);
    expect((await post('/api/files/upload', deep, 'deep')).status).toBe(201);
  });

  it('on the root refuses an upload at the root; a folder delete is refused for a lock anywhere inside it', async () => {
    const username = await newUser();
    await lock(username, '', '0');
    expectLocked(await post('/api/files/upload', { username, file: 'root.txt' }, 'r'), 'upload at the root');
    await lock(username, 'docs/sub/b.txt', '0');
    expectLocked(await post('/api/folders/delete', { username, folder: 'docs' }), 'delete of a folder holding a locked file');
  });
});

describe('a lock that expired', () => {
  it('is not honoured: the write passes once it has', async () => {
    const username = await newUser();
    await lock(username, 'docs/a.txt', '0', 1);
    const rename = { username, folder: 'docs', file: 'a.txt', newname: 'later.txt' };
    await vi.waitFor(async () => expect((await post('/api/files/rename', rename)).status).toBe(201), WAIT);
  });
});

if (!embeddedRun) {
  describe('two daemons on one database', () => {
    let other: TestDaemon;
    beforeAll(async () => {
      other = await startTestDaemon({ env: t.env });
    });
    afterAll(() => other.close());

    it('honour a lock taken through either, once it has caught up', async () => {
      const username = await newUser();
      const held = await lock(username, 'docs', 'infinity');
      // A write is no probe (it would pass while the other lags, and change what follows): the other's own view is.
      const seenBy = (d: TestDaemon, path: string) => locksCovering(contextOf(d.daemon), username, path).length;
      await vi.waitFor(() => expect(seenBy(other, 'docs/a.txt')).toBe(1), WAIT);
      const rename = { username, folder: 'docs', file: 'a.txt', newname: 'moved.txt' };
      expectLocked(await other.api('POST', '/api/files/rename', rename), 'rename on the other daemon');
      await removeLock(nimbus(), username, 'docs', held.token);
      await vi.waitFor(() => expect(seenBy(other, 'docs/a.txt')).toBe(0), WAIT);
      expect((await other.api('POST', '/api/files/rename', rename)).status).toBe(201);
      // And the other way round: the other daemon's lock is honoured here.
      await createLock(contextOf(other.daemon), { username, path: 'other', depth: '0', scope: 'exclusive', owner: '', timeoutSeconds: 60 });
      await vi.waitFor(() => expect(seenBy(t, 'other')).toBe(1), WAIT);
      expectLocked(await post('/api/folders/create', { username, folder: 'other/x' }), 'create here');
    });

    it('grant one of two conflicting locks asked of both at once, never both', async () => {
      for (let round = 0; round < 5; round++) {
        const username = await newUser();
        const ask = (d: TestDaemon) =>
          createLock(contextOf(d.daemon), { username, path: 'docs', depth: 'infinity', scope: 'exclusive', owner: '', timeoutSeconds: 60 });
        const answers = await Promise.allSettled([ask(t), ask(other)]);
        expect(answers.map((a) => a.status).sort(), `round ${round}`).toEqual(['fulfilled', 'rejected']);
        const refused = answers.find((a) => a.status === 'rejected') as PromiseRejectedResult;
        expect(refused.reason).toMatchObject({ status: 423, code: 'locked' });
      }
    });
  });
}
