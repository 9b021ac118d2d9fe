/**
 * WebDAV's locks as services (daemon/services/dav-locks.ts, lock-tokens.ts) against a real
 * daemon's context: conflicts, depth, timeouts and expiry, refresh and unlock, what covers a
 * path, the tokens a scope submits, a restart, a user's deletion. Both backends.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NimbusContext } from '../../daemon/context.js';
import { contextOf } from '../../daemon/daemon.js';
import { ApiError } from '../../daemon/errors.js';
import {
  createLock,
  locksCovering,
  locksWithin,
  refreshLock,
  removeLock,
  sweepExpiredLocks,
  type LockRequest,
} from '../../daemon/services/dav-locks.js';
import { uploadFile } from '../../daemon/services/files.js';
import { requireUnlocked, withLockTokens } from '../../daemon/services/lock-tokens.js';
import { moveFolder } from '../../daemon/services/transfers.js';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;
let n = 0;
const WAIT = { timeout: 15_000, interval: 50 };

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

const nimbus = (): NimbusContext => contextOf(t.daemon);

async function newUser(): Promise<string> {
  const username = `l${++n}`;
  await createUser(t, username);
  return username;
}

const lockOf = (username: string, path: string, more: Partial<LockRequest> = {}): LockRequest => ({
  username,
  path,
  depth: 'infinity',
  scope: 'exclusive',
  owner: '<D:href>http://example.com/ana</D:href>',
  timeoutSeconds: 600,
  ...more,
});

/** The ApiError a call rejects with (fails the test when it resolves). */
async function refusal(call: Promise<unknown> | (() => unknown)): Promise<ApiError> {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('createLock', () => {
  it('grants a lock with a urn:uuid token, kept as asked, lockRoot its path', async () => {
    const username = await newUser();
    const before = Date.now();
    const lock = await createLock(nimbus(), lockOf(username, 'a/b.txt', { depth: '0', timeoutSeconds: 120 }));
    expect(lock.token).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(lock).toMatchObject({
      username,
      path: 'a/b.txt',
      lockRoot: 'a/b.txt',
      depth: '0',
      scope: 'exclusive',
      owner: '<D:href>http://example.com/ana</D:href>',
      timeoutSeconds: 120,
    });
    expect(lock.expiresAt).toBeGreaterThanOrEqual(before + 120_000);
    expect(locksCovering(nimbus(), username, 'a/b.txt')).toEqual([lock]);
  });

  it('caps the timeout at an hour (Infinite too) and grants at least a second', async () => {
    const username = await newUser();
    expect((await createLock(nimbus(), lockOf(username, 'x', { timeoutSeconds: 86_400 }))).timeoutSeconds).toBe(3600);
    expect((await createLock(nimbus(), lockOf(username, 'y', { timeoutSeconds: Infinity }))).timeoutSeconds).toBe(3600);
    expect((await createLock(nimbus(), lockOf(username, 'z', { timeoutSeconds: 0 }))).timeoutSeconds).toBe(1);
  });

  it('refuses an exclusive lock on a locked resource, 423 locked, and any lock beside an exclusive one', async () => {
    const username = await newUser();
    await createLock(nimbus(), lockOf(username, 'f.txt', { depth: '0' }));
    for (const scope of ['exclusive', 'shared'] as const) {
      const err = await refusal(createLock(nimbus(), lockOf(username, 'f.txt', { depth: '0', scope })));
      expect([err.status, err.code]).toEqual([423, 'locked']);
    }
  });

  it('lets shared locks share, and refuses an exclusive one beside them', async () => {
    const username = await newUser();
    const one = await createLock(nimbus(), lockOf(username, 's', { scope: 'shared' }));
    const two = await createLock(nimbus(), lockOf(username, 's', { scope: 'shared' }));
    expect(
      locksCovering(nimbus(), username, 's')
        .map((l) => l.token)
        .sort(),
    ).toEqual([one.token, two.token].sort());
    expect((await refusal(createLock(nimbus(), lockOf(username, 's/in.txt', { depth: '0' })))).status).toBe(423);
  });

  it('refuses a lock below an exclusive depth-infinity lock, not below a depth-0 one', async () => {
    const username = await newUser();
    await createLock(nimbus(), lockOf(username, 'deep'));
    await createLock(nimbus(), lockOf(username, 'flat', { depth: '0' }));
    expect((await refusal(createLock(nimbus(), lockOf(username, 'deep/a/b/c.txt', { depth: '0' })))).status).toBe(423);
    await expect(createLock(nimbus(), lockOf(username, 'flat/c.txt', { depth: '0' }))).resolves.toMatchObject({ path: 'flat/c.txt' });
  });

  it('refuses a depth-infinity lock above a locked resource, not a depth-0 one', async () => {
    const username = await newUser();
    await createLock(nimbus(), lockOf(username, 'top/mid/leaf.txt', { depth: '0' }));
    expect((await refusal(createLock(nimbus(), lockOf(username, 'top')))).status).toBe(423);
    expect((await refusal(createLock(nimbus(), lockOf(username, '')))).status).toBe(423);
    await expect(createLock(nimbus(), lockOf(username, 'top', { depth: '0' }))).resolves.toMatchObject({ path: 'top' });
  });

  it('does not see a sibling with a common prefix as below (a/b is not inside a/bc)', async () => {
    const username = await newUser();
    await createLock(nimbus(), lockOf(username, 'a/b'));
    await expect(createLock(nimbus(), lockOf(username, 'a/bc'))).resolves.toMatchObject({ path: 'a/bc' });
  });

  it('answers 404 for a user that does not exist', async () => {
    expect((await refusal(() => createLock(nimbus(), lockOf('nobody-here', 'x')))).code).toBe('user_not_found');
  });
});

describe('locksCovering and locksWithin', () => {
  it('cover a path with its own locks and its ancestors’ depth-infinity ones only', async () => {
    const username = await newUser();
    const root = await createLock(nimbus(), lockOf(username, '', { scope: 'shared' }));
    const flat = await createLock(nimbus(), lockOf(username, 'a', { depth: '0', scope: 'shared' }));
    const own = await createLock(nimbus(), lockOf(username, 'a/b/f.txt', { depth: '0', scope: 'shared' }));
    const tokens = (locks: { token: string }[]) => locks.map((l) => l.token).sort();
    expect(tokens(locksCovering(nimbus(), username, 'a/b/f.txt'))).toEqual(tokens([root, own]));
    expect(tokens(locksCovering(nimbus(), username, 'a'))).toEqual(tokens([root, flat]));
    expect(tokens(locksCovering(nimbus(), username, ''))).toEqual(tokens([root]));
    expect(tokens(locksWithin(nimbus(), username, 'a'))).toEqual(tokens([flat, own]));
    expect(tokens(locksWithin(nimbus(), username, 'a/b'))).toEqual(tokens([own]));
    expect(tokens(locksWithin(nimbus(), username, ''))).toEqual(tokens([root, flat, own]));
  });
});

describe('refreshLock and removeLock', () => {
  it('refreshes a lock by its own path or a path it covers, with a new timeout', async () => {
    const username = await newUser();
    const lock = await createLock(nimbus(), lockOf(username, 'r', { timeoutSeconds: 5 }));
    const refreshed = await refreshLock(nimbus(), username, 'r/below/f.txt', lock.token, 900);
    expect(refreshed).toMatchObject({ token: lock.token, path: 'r', timeoutSeconds: 900 });
    expect(refreshed.expiresAt).toBeGreaterThan(lock.expiresAt);
    expect(locksCovering(nimbus(), username, 'r')).toEqual([refreshed]);
  });

  it('answers 412 lock_token_mismatch to a refresh of a token that does not cover the path', async () => {
    const username = await newUser();
    const lock = await createLock(nimbus(), lockOf(username, 'r', { depth: '0' }));
    for (const [path, token] of [
      ['r/f.txt', lock.token],
      ['other', lock.token],
      ['r', 'urn:uuid:00000000-0000-4000-8000-000000000000'],
    ]) {
      const err = await refusal(refreshLock(nimbus(), username, path, token, 60));
      expect([err.status, err.code]).toEqual([412, 'lock_token_mismatch']);
    }
  });

  it('removes a lock by a path it covers; 409 lock_token_mismatch for a path it does not', async () => {
    const username = await newUser();
    const lock = await createLock(nimbus(), lockOf(username, 'u'));
    const err = await refusal(removeLock(nimbus(), username, 'elsewhere', lock.token));
    expect([err.status, err.code]).toEqual([409, 'lock_token_mismatch']);
    await removeLock(nimbus(), username, 'u/in/f.txt', lock.token);
    expect(locksWithin(nimbus(), username, '')).toEqual([]);
    await expect(createLock(nimbus(), lockOf(username, 'u'))).resolves.toMatchObject({ path: 'u' });
  });
});

describe('expiry', () => {
  it('neither lists nor honours an expired lock, and the sweep removes it from the store', async () => {
    const username = await newUser();
    const lock = await createLock(nimbus(), lockOf(username, 'brief', { timeoutSeconds: 1 }));
    expect(() => requireUnlocked(nimbus(), username, ['brief'])).toThrow(ApiError);
    await vi.waitFor(() => expect(locksCovering(nimbus(), username, 'brief')).toEqual([]), WAIT);
    expect(() => requireUnlocked(nimbus(), username, ['brief'])).not.toThrow();
    await expect(createLock(nimbus(), lockOf(username, 'brief'))).resolves.toMatchObject({ path: 'brief' });
    // The new lock's change removed the expired one already; the sweep finds the rest.
    expect(nimbus().store.dav.locks.has(lock.token)).toBe(false);
    const other = await newUser();
    const stale = await createLock(nimbus(), lockOf(other, 'x', { timeoutSeconds: 1 }));
    await vi.waitFor(() => expect(locksWithin(nimbus(), other, '')).toEqual([]), WAIT);
    expect(nimbus().store.dav.locks.has(stale.token)).toBe(true);
    expect(await sweepExpiredLocks(nimbus())).toBeGreaterThanOrEqual(1);
    expect(nimbus().store.dav.locks.has(stale.token)).toBe(false);
  });
});

describe('requireUnlocked and withLockTokens', () => {
  it('refuses a covered path, 423 locked, unless the scope submits every covering lock’s token', async () => {
    const username = await newUser();
    const above = await createLock(nimbus(), lockOf(username, 'p', { scope: 'shared' }));
    const own = await createLock(nimbus(), lockOf(username, 'p/q.txt', { depth: '0', scope: 'shared' }));
    const err = await refusal(() => requireUnlocked(nimbus(), username, ['p/q.txt']));
    expect([err.status, err.code]).toEqual([423, 'locked']);
    await expect(withLockTokens(new Set([above.token]), async () => requireUnlocked(nimbus(), username, ['p/q.txt']))).rejects.toThrow(
      ApiError,
    );
    await withLockTokens(new Set([above.token, own.token]), async () => requireUnlocked(nimbus(), username, ['p/q.txt']));
    // The scope ends with its function: outside it nothing is submitted.
    expect(() => requireUnlocked(nimbus(), username, ['p/q.txt'])).toThrow(ApiError);
    // Another user's paths and unrelated ones are not affected.
    expect(() => requireUnlocked(nimbus(), username, ['elsewhere', 'pq'])).not.toThrow();
  });

  it('refuses a folder’s delete or move (within) for a lock anywhere below it', async () => {
    const username = await newUser();
    const lock = await createLock(nimbus(), lockOf(username, 'w/x/y/z.txt', { depth: '0' }));
    expect(() => requireUnlocked(nimbus(), username, ['w'])).not.toThrow();
    expect(() => requireUnlocked(nimbus(), username, [], ['w'])).toThrow(ApiError);
    await withLockTokens(new Set([lock.token]), async () => requireUnlocked(nimbus(), username, [], ['w']));
  });

  it('keeps the tokens through awaits inside the scope', async () => {
    const username = await newUser();
    const lock = await createLock(nimbus(), lockOf(username, 'k'));
    // Refused (423) would reject: the token is still seen after an await and inside a name lock.
    await expect(
      withLockTokens(new Set([lock.token]), async () => {
        await new Promise((resolve) => setImmediate(resolve));
        await nimbus().locks.run('some-key', async () => requireUnlocked(nimbus(), username, ['k/deep']));
        return 'written';
      }),
    ).resolves.toBe('written');
  });
});

describe('the services inside a withLockTokens scope (as the dav layer calls them)', () => {
  const put = (username: string, folder: string, file: string, body: string) =>
    uploadFile(nimbus(), {
      username,
      folder,
      file,
      overwrite: true,
      declaredLength: body.length,
      body: Readable.from([Buffer.from(body)]),
    });

  it('upload into a locked folder with its token, and not without', async () => {
    const username = await newUser();
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'in/deep', parents: 'true' })).status).toBe(201);
    const held = await createLock(nimbus(), lockOf(username, 'in'));
    expect((await refusal(put(username, 'in/deep', 'f.txt', 'no token'))).code).toBe('locked');
    await withLockTokens(new Set([held.token]), () => put(username, 'in/deep', 'f.txt', 'with the token'));
    expect((await t.api('GET', '/api/files/download', { username, folder: 'in/deep', file: 'f.txt' })).text).toBe('with the token');
  });

  it('move a folder holding locks with their tokens, which releases them (a lock does not move)', async () => {
    const username = await newUser();
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'src/inner', parents: 'true' })).status).toBe(201);
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'dst' })).status).toBe(201);
    const inner = await createLock(nimbus(), lockOf(username, 'src/inner', { depth: '0' }));
    const target = await createLock(nimbus(), lockOf(username, 'dst', { depth: '0' }));
    expect((await refusal(withLockTokens(new Set([inner.token]), () => moveFolder(nimbus(), username, 'src', 'dst')))).code).toBe('locked');
    await withLockTokens(new Set([inner.token, target.token]), () => moveFolder(nimbus(), username, 'src', 'dst'));
    expect(locksWithin(nimbus(), username, '').map((l) => l.token)).toEqual([target.token]);
  });
});

describe('locks are kept', () => {
  it('across a restart', async () => {
    const username = await newUser();
    const lock = await createLock(nimbus(), lockOf(username, 'kept'));
    await t.stop();
    await t.restart();
    expect(locksCovering(nimbus(), username, 'kept/f.txt')).toEqual([lock]);
  });

  it('until their user is deleted', async () => {
    const username = await newUser();
    const lock = await createLock(nimbus(), lockOf(username, 'mine'));
    expect((await t.api('POST', '/api/user/delete', { username })).status).toBe(200);
    expect(nimbus().store.dav.locks.has(lock.token)).toBe(false);
    await createUser(t, username);
    expect(locksWithin(nimbus(), username, '')).toEqual([]);
  });
});
