/**
 * The store on PostgreSQL (docs/cluster.md, "The store"): every collection survives a reopen;
 * two stores on one database behave as two daemons (changes travel by NOTIFY, conflicts answer
 * 409 and converge on the winner); a failed change-set fails alone; daemons migrate at once;
 * an outage answers 503 and heals without a restart, with a resync of what was missed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../daemon/errors.js';
import type { RemoteChange } from '../../daemon/store/backend.js';
import { Database } from '../../daemon/store/postgres/database.js';
import { migrate } from '../../daemon/store/postgres/migrate.js';
import { MIGRATIONS } from '../../daemon/store/postgres/migrations/index.js';
import type {
  StoredFile,
  StoredFolder,
  StoredKey,
  StoredReset,
  StoredSession,
  StoredShare,
  StoredTrashItem,
  StoredUser,
  StoredVerification,
} from '../../daemon/store/schema.js';
import { sharePathKey, Store } from '../../daemon/store/store.js';
import { sharedPostgres, startPostgres, type PrivatePostgres } from '../helpers/engines.js';

const at = '2026-01-01T00:00:00.000Z';
const user = (username: string, email = `${username}@example.com`): StoredUser => ({
  username,
  email,
  role: 'user',
  emailVerified: true,
  createdAt: at,
  passwordHash: 'scrypt$1$1$1$salt$hash',
});
const file = (id: string, name: string, folderId: string | null = null): StoredFile => ({
  id,
  username: 'ana',
  folderId,
  name,
  size: 5,
  mtimeMs: 1,
  contentType: 'text/plain',
  etag: '"e"',
  trashId: null,
});

/** Stores opened by a test, closed after it. */
const opened: Store[] = [];
async function open(url: string): Promise<Store> {
  const store = await Store.openPostgres(url);
  opened.push(store);
  return store;
}
const closeAll = async () => {
  await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
};

/** Watches a store's remote changes. */
function remoteChanges(store: Store): RemoteChange[] {
  const seen: RemoteChange[] = [];
  store.onRemoteChange((change) => seen.push(change));
  return seen;
}

const statusOf = (result: PromiseSettledResult<void>) => (result.status === 'rejected' ? (result.reason as ApiError).status : 200);

describe('the PostgreSQL store', () => {
  let newDatabase: () => Promise<string>;
  beforeAll(async () => {
    const engine = await sharedPostgres();
    newDatabase = () => engine.createDatabase();
  });
  afterAll(closeAll);

  it('keeps every collection across a reopen, starting with the built-in roles', async () => {
    const url = await newDatabase();
    const a = await open(url);
    expect([...a.roles.keys()].sort()).toEqual(['admin', 'user']);
    const share: StoredShare = { token: 't1', username: 'ana', folder: null, file: 'a.txt', createdAt: at };
    const key: StoredKey = { label: 'ci', scope: 'read', hash: 'k1', createdAt: at, username: null };
    const verification: StoredVerification = { hash: 'v1', username: 'ana', email: 'a@example.com', expiresAt: at };
    const session: StoredSession = {
      id: 's',
      hash: 'h1',
      username: 'ana',
      createdAt: at,
      lastUsedAt: at,
      expiresAt: at,
      device: 'Firefox',
      address: '::1',
    };
    const reset: StoredReset = { hash: 'r1', username: 'ana', expiresAt: at };
    const trashed: StoredTrashItem = {
      id: 'tr1',
      username: 'ana',
      kind: 'file',
      name: 'old.txt',
      folder: null,
      size: 7,
      fileCount: 1,
      deletedAt: at,
    };
    const folder: StoredFolder = { id: 'fo1', username: 'ana', name: 'docs', mtimeMs: 2, trashId: null };
    a.users.set('ana', user('ana'));
    a.roles.set('gold', { name: 'gold', maxStorage: 42, badge: '/b.png', builtIn: false });
    a.putShare(share);
    a.keysByHash.set(key.hash, key);
    a.verifications.set(verification.hash, verification);
    a.sessions.set(session.hash, session);
    a.resets.set(reset.hash, reset);
    a.putTrash(trashed);
    a.files.set('f1', file('f1', 'a.txt', 'fo1'));
    a.folders.set(folder.id, folder);
    await a.commit();
    await a.close();

    const b = await open(url);
    expect(b.users.get('ana')).toEqual(user('ana'));
    expect(b.roles.get('gold')?.maxStorage).toBe(42);
    expect(b.sharesByToken.get('t1')).toEqual(share);
    expect(b.sharesByPath.get(sharePathKey('ana', null, 'a.txt'))).toEqual(share);
    expect(b.keysByHash.get('k1')).toEqual(key);
    expect(b.verifications.get('v1')).toEqual(verification);
    expect(b.sessions.get('h1')).toEqual(session);
    expect(b.resets.get('r1')).toEqual(reset);
    expect(b.trashOf('ana')).toEqual([trashed]);
    expect(b.trashBytes('ana')).toBe(7);
    expect(b.files.get('f1')).toEqual(file('f1', 'a.txt', 'fo1'));
    expect(b.folders.get('fo1')).toEqual(folder);

    // Operators query the generated columns.
    const { rows } = await b.database!.query('SELECT username, folder_id, name, size, trash_id FROM files');
    expect(rows).toEqual([{ username: 'ana', folder_id: 'fo1', name: 'a.txt', size: '5', trash_id: null }]);

    // An update and a delete reach the database too.
    b.users.set('ana', user('ana', 'new@example.com'));
    b.deleteShare(share);
    b.files.delete('f1');
    await b.commit();
    await b.close();
    const c = await open(url);
    expect(c.users.get('ana')?.email).toBe('new@example.com');
    expect(c.sharesByToken.size).toBe(0);
    expect(c.files.size).toBe(0);
  });

  it('runs the sessions’ beforeWrite hook, and writes a record changed in place once touched', async () => {
    const url = await newDatabase();
    const a = await open(url);
    let calls = 0;
    a.beforeWrite = () => calls++;
    const session: StoredSession = {
      id: 's',
      hash: 'h',
      username: 'ana',
      createdAt: at,
      lastUsedAt: at,
      expiresAt: at,
      device: '',
      address: '',
    };
    a.sessions.set('h', session);
    await a.commit();
    session.lastUsedAt = '2026-02-02T00:00:00.000Z';
    a.sessions.touch('h');
    await a.commit();
    expect(calls).toBe(2);
    const { rows } = await a.database!.query("SELECT data->>'lastUsedAt' AS last FROM sessions");
    expect(rows).toEqual([{ last: '2026-02-02T00:00:00.000Z' }]);
  });

  describe('two daemons on one database', () => {
    let a: Store;
    let b: Store;
    beforeAll(async () => {
      const url = await newDatabase();
      [a, b] = await Promise.all([open(url), open(url)]);
    });

    it('see each other’s changes, indexes included, with onRemoteChange', async () => {
      const seen = remoteChanges(b);
      a.users.set('bo', user('bo'));
      const share: StoredShare = { token: 'tb', username: 'bo', folder: 'x', file: 'y', createdAt: at };
      a.putShare(share);
      const item: StoredTrashItem = {
        id: 'tb1',
        username: 'bo',
        kind: 'folder',
        name: 'z',
        folder: null,
        size: 11,
        fileCount: 2,
        deletedAt: at,
      };
      a.putTrash(item);
      await a.commit();
      await vi.waitFor(() => expect(b.users.get('bo')).toEqual(user('bo')));
      expect(b.sharesByPath.get(sharePathKey('bo', 'x', 'y'))).toEqual(share);
      expect(b.trashBytes('bo')).toBe(11);
      expect(seen).toContainEqual({ collection: 'users', key: 'bo', before: undefined, after: user('bo') });

      // A change seen elsewhere is not written back by the daemon that received it.
      b.users.set('other', user('other'));
      await b.commit();
      const { rows } = await b.database!.query<{ key: string }>('SELECT key FROM users ORDER BY key');
      expect(rows.map((r) => r.key)).toEqual(['bo', 'other']);

      a.deleteShare(share);
      a.deleteTrash(item);
      await a.commit();
      await vi.waitFor(() => expect(b.sharesByToken.has('tb')).toBe(false));
      expect(b.sharesByPath.size).toBe(0);
      expect(b.trashBytes('bo')).toBe(0);
      expect(seen).toContainEqual({ collection: 'shares', key: 'tb', before: share, after: undefined });
    });

    it('answer 409 to the loser of an insert race, and both end with the winner’s record', async () => {
      a.users.set('race', user('race', 'a@example.com'));
      b.users.set('race', user('race', 'b@example.com'));
      const results = await Promise.allSettled([a.commit(), b.commit()]);
      expect(results.map(statusOf).sort()).toEqual([200, 409]);
      const winner = results[0].status === 'fulfilled' ? 'a@example.com' : 'b@example.com';
      await vi.waitFor(() => {
        expect(a.users.get('race')?.email).toBe(winner);
        expect(b.users.get('race')?.email).toBe(winner);
      });
    });

    it('answer 409 to an update of a record deleted elsewhere', async () => {
      a.users.set('gone', user('gone'));
      await a.commit();
      await vi.waitFor(() => expect(b.users.has('gone')).toBe(true));
      // Deleted without a notification, so b surely still believes the row is there: an UPDATE.
      await a.database!.query(`DELETE FROM users WHERE key = 'gone'`);
      b.users.set('gone', user('gone', 'late@example.com'));
      const seen = remoteChanges(b);
      await expect(b.commit()).rejects.toMatchObject({ status: 409, code: 'conflict' });
      // b re-read the row: gone, and its listeners heard of it.
      expect(b.users.has('gone')).toBe(false);
      expect(seen).toEqual([{ collection: 'users', key: 'gone', before: user('gone', 'late@example.com'), after: undefined }]);
    });

    it('write nothing of a change-set whose update finds a record deleted elsewhere', async () => {
      a.users.set('kept', user('kept'));
      a.users.set('lost', user('lost'));
      await a.commit();
      await vi.waitFor(() => expect(b.users.has('lost')).toBe(true));
      await a.database!.query(`DELETE FROM users WHERE key = 'lost'`);
      // One statement updates both: it must not keep the one it found.
      b.users.set('kept', user('kept', 'new@example.com'));
      b.users.set('lost', user('lost', 'new@example.com'));
      await expect(b.commit()).rejects.toMatchObject({ status: 409, code: 'conflict' });
      const { rows } = await a.database!.query<{ email: string }>(`SELECT email FROM users WHERE key = 'kept'`);
      expect(rows).toEqual([{ email: 'kept@example.com' }]);
      expect(b.users.get('kept')?.email).toBe('kept@example.com');
    });

    it('write the rest of a change-set whose version record another daemon dropped, and drop it here too', async () => {
      const version = (file: string) => ({ id: 'v1', username: 'ana', folder: null, file, size: 5, mtimeMs: 1, keptAt: at });
      a.collection('versions').set('v1', version('old.txt'));
      await a.commit();
      await vi.waitFor(() => expect(b.collection('versions').has('v1')).toBe(true));
      // Another daemon's retention dropped it; b has not heard yet, and moves it with a rename.
      await a.database!.query(`DELETE FROM versions WHERE key = 'v1'`);
      b.users.set('mover', user('mover'));
      b.collection('versions').set('v1', version('new.txt'));
      await b.commit();
      expect(b.collection('versions').has('v1')).toBe(false);
      const { rows } = await a.database!.query(`SELECT key FROM users WHERE key = 'mover'`);
      expect(rows).toHaveLength(1);
      // Alone in its change-set (one statement), the update of a gone version is no conflict either.
      a.collection('versions').set('v2', { ...version('x.txt'), id: 'v2' });
      await a.commit();
      await vi.waitFor(() => expect(b.collection('versions').has('v2')).toBe(true));
      await a.database!.query(`DELETE FROM versions WHERE key = 'v2'`);
      b.collection('versions').set('v2', { ...version('y.txt'), id: 'v2' });
      await b.commit();
      expect(b.collection('versions').has('v2')).toBe(false);
    });

    it('fail only the change-set that conflicts, not the others of the same flush', async () => {
      // A row written behind a's back (no notification): a believes the name free.
      await b.database!.query(`INSERT INTO users (key, data) VALUES ('hidden', $1)`, [JSON.stringify(user('hidden', 'db@example.com'))]);
      a.users.set('hidden', user('hidden', 'mine@example.com'));
      const first = a.commit();
      a.users.set('fine', user('fine'));
      const second = a.commit();
      const results = await Promise.allSettled([first, second]);
      expect(results.map(statusOf)).toEqual([409, 200]);
      // The failed change-set's keys were re-read from the database.
      expect(a.users.get('hidden')?.email).toBe('db@example.com');
      await vi.waitFor(() => expect(b.users.has('fine')).toBe(true));
      // The unique indexes hold too: a second share on one path conflicts.
      a.putShare({ token: 'p1', username: 'ana', folder: null, file: 'same', createdAt: at });
      await a.commit();
      b.putShare({ token: 'p2', username: 'ana', folder: null, file: 'same', createdAt: at });
      await expect(b.commit()).rejects.toMatchObject({ status: 409 });
    });

    it('write a burst of change-sets on different keys in one transaction, every one acknowledged only once in the database', async () => {
      const listener = await Database.connect(b.database!.url);
      const client = await listener.pool.connect();
      let notices = 0;
      client.on('notification', () => notices++);
      await client.query('LISTEN nimbus_changes');
      try {
        const names = Array.from({ length: 50 }, (_, i) => `burst${i}`);
        const commits = names.map((name) => {
          a.users.set(name, user(name));
          return a.commit();
        });
        await Promise.all(commits);
        const { rows } = await b.database!.query<{ n: string }>('SELECT count(*) AS n FROM users WHERE key = ANY($1::text[])', [names]);
        expect(Number(rows[0].n)).toBe(50);
        // Notifications of a committed transaction arrive before the answer to the next command.
        await client.query('SELECT 1');
        // All queued in one tick: one flush, one transaction, one NOTIFY.
        expect(notices).toBe(1);
        await vi.waitFor(() => expect(names.every((n) => b.users.has(n))).toBe(true));
      } finally {
        client.release();
        await listener.close();
      }
    });

    it('write change-sets of one flush that touch the same key, or swap unique names, as one after the other', async () => {
      a.users.set('twice', user('twice', 'one@example.com'));
      const first = a.commit();
      a.users.set('twice', user('twice', 'two@example.com'));
      const second = a.commit();
      await expect(Promise.all([first, second])).resolves.toBeDefined();
      const { rows } = await b.database!.query<{ email: string }>(`SELECT email FROM users WHERE key = 'twice'`);
      expect(rows).toEqual([{ email: 'two@example.com' }]);

      a.files.set('sw1', file('sw1', 'x'));
      a.files.set('sw2', file('sw2', 'z'));
      await a.commit();
      // x → y, then z → x: written at once in one UPDATE the unique index may refuse mid-statement; one after the other it holds.
      a.files.set('sw1', file('sw1', 'y'));
      const rename = a.commit();
      a.files.set('sw2', file('sw2', 'x'));
      const take = a.commit();
      await expect(Promise.all([rename, take])).resolves.toBeDefined();
      const names = await b.database!.query<{ key: string; name: string }>(
        `SELECT key, name FROM files WHERE key IN ('sw1', 'sw2') ORDER BY key`,
      );
      expect(names.rows).toEqual([
        { key: 'sw1', name: 'y' },
        { key: 'sw2', name: 'x' },
      ]);
      // b has heard of both (so the next test's listener does not).
      await vi.waitFor(() => expect([b.files.get('sw1')?.name, b.files.get('sw2')?.name]).toEqual(['y', 'x']));
    });

    it('tell the others to reload a collection when a change names too many keys', async () => {
      const seen = remoteChanges(b);
      for (let i = 0; i < 2000; i++) a.files.set(`bulk${i}`, file(`bulk${i}`, `n${i}`));
      await a.commit();
      await vi.waitFor(() => expect([...b.files.keys()].filter((k) => k.startsWith('bulk'))).toHaveLength(2000));
      expect(seen.filter((c) => c.collection === 'files')).toHaveLength(2000);
      // A rename of all of them is one change-set of updates.
      for (let i = 0; i < 2000; i++) a.files.set(`bulk${i}`, { ...file(`bulk${i}`, `n${i}`), username: 'bea' });
      await a.commit();
      await vi.waitFor(() => expect(b.files.get('bulk1999')?.username).toBe('bea'));
    });

    it('never let a read of the database taken before their own commit put back the older state over it (a reload racing an upload)', async () => {
      // b's own insert of `held` waits on a lock (another session inserting the same key, not yet
      // committed), so it is in flight while a's big change makes b re-read the whole files table:
      // a snapshot without `held`. Applied over b's Map, that read took `held` away for good (b
      // skips notices of its own commits): the soak saw one daemon never list a file the others did.
      const blocker = await Database.connect(b.database!.url);
      const session = await blocker.pool.connect();
      try {
        await session.query('BEGIN');
        await session.query(`INSERT INTO files (key, data) VALUES ('held', $1)`, [JSON.stringify(file('held', 'held-elsewhere'))]);
        b.files.set('held', file('held', 'held.txt'));
        const committing = b.commit();
        for (let i = 0; i < 1000; i++) a.files.set(`reload${i}`, file(`reload${i}`, `r${i}`));
        await a.commit();
        await vi.waitFor(() => expect([...b.files.keys()].filter((k) => k.startsWith('reload'))).toHaveLength(1000));
        await session.query('ROLLBACK');
        await committing;
        const { rows } = await b.database!.query<{ key: string }>(`SELECT key FROM files WHERE key = 'held'`);
        expect(rows).toHaveLength(1);
        expect(b.files.get('held')?.name).toBe('held.txt');
        await vi.waitFor(() => expect(a.files.get('held')?.name).toBe('held.txt'));
      } finally {
        session.release();
        await blocker.close();
      }
    });
  });

  it('lets daemons that start at once migrate one after the other', async () => {
    const url = await newDatabase();
    const [x, y] = await Promise.all([Database.connect(url), Database.connect(url)]);
    try {
      const applied = await Promise.all([migrate(x), migrate(y)]);
      const all = MIGRATIONS.map((m) => m.version);
      expect(applied.map((v) => v.length).sort()).toEqual([0, all.length]);
      const { rows } = await x.query<{ version: number }>('SELECT version FROM nimbus_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(all);
      const roles = await x.query('SELECT key FROM roles');
      expect(roles.rowCount).toBe(2);
    } finally {
      await Promise.all([x.close(), y.close()]);
    }
    // Whole stores too.
    const url2 = await newDatabase();
    const stores = await Promise.all([open(url2), open(url2), open(url2)]);
    for (const store of stores) expect([...store.roles.keys()].sort()).toEqual(['admin', 'user']);
  });

  it('tells a connection error from a refused statement', async () => {
    const refused = await Database.connect('postgres://postgres@127.0.0.1:1/none').catch((err: unknown) => err);
    expect(Database.isConnectionError(refused)).toBe(true);
    const db = await Database.connect(await newDatabase());
    try {
      const syntax = await db.query('SELEC 1').catch((err: unknown) => err);
      expect(db.isConnectionError(syntax)).toBe(false);
      const killed = await db
        .transaction((client) => client.query('SELECT pg_terminate_backend(pg_backend_pid())'))
        .catch((err: unknown) => err);
      expect(db.isConnectionError(killed)).toBe(true);
      // The pool recovers by itself.
      expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('tells a pool that kept every connection busy past its timeout from a lost connection', async () => {
    const db = await Database.connect(await newDatabase(), { max: 1 });
    let letGo = () => undefined as void;
    const holding = db.transaction(() => new Promise<void>((resolve) => (letGo = resolve)));
    try {
      // The one pooled connection is held: this query waits for it until the pool gives up.
      const waited = await db.query('SELECT 1').catch((err: unknown) => err);
      expect(Database.isPoolBusy(waited)).toBe(true);
      expect(Database.isConnectionError(waited)).toBe(false);
    } finally {
      letGo();
      await holding;
    }
    try {
      expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      const refused = await Database.connect('postgres://postgres@127.0.0.1:1/none').catch((err: unknown) => err);
      expect(Database.isPoolBusy(refused)).toBe(false);
    } finally {
      await db.close();
    }
  });

  it('re-reads everything after its LISTEN connection drops, reporting what it missed', async () => {
    const url = await newDatabase();
    const a = await open(url);
    const seen = remoteChanges(a);
    const availability: boolean[] = [];
    a.onAvailability((available) => availability.push(available));
    // Changed behind a's back, no notification: only a resync can find it.
    await a.database!.query(`INSERT INTO users (key, data) VALUES ('missed', $1)`, [JSON.stringify(user('missed'))]);
    await a.database!.query(`DELETE FROM roles WHERE key = 'admin'`);
    await a.database!.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()`,
    );
    await vi.waitFor(() => expect(availability).toEqual([false, true]), { timeout: 10_000 });
    expect(a.available).toBe(true);
    expect(a.users.get('missed')).toEqual(user('missed'));
    expect(a.roles.has('admin')).toBe(false);
    expect(seen.map((c) => `${c.collection}:${c.key}`).sort()).toEqual(['roles:admin', 'users:missed']);
  });

  it('answers a strict catch-up 503 when a read it waited for failed, even while its LISTEN connection still stands', async () => {
    const url = await newDatabase();
    const b = await open(url);
    // Another daemon's notice of a row b must read, while that read cannot finish: the table
    // locked by a session that holds it, then b's reading connection cut (the database going away).
    const blocker = await Database.connect(url);
    const session = await blocker.pool.connect();
    try {
      await session.query('BEGIN');
      await session.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      await blocker.query(`SELECT pg_notify('nimbus_changes', $1)`, [
        JSON.stringify({ origin: 'elsewhere', changes: { users: ['late'] } }),
      ]);
      // Its outcome is taken at once: the rejection may come before the terminate's own answer,
      // and a rejection nobody handles yet is an unhandled error for the whole run.
      const catchingUp = b.catchUp(true).then(
        () => 'caught up',
        (err: unknown) => err,
      );
      const blocked = async () =>
        (
          await blocker.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'SELECT key, data FROM "users"%'`,
          )
        ).rows;
      await vi.waitFor(async () => expect(await blocked()).toHaveLength(1));
      await blocker.query('SELECT pg_terminate_backend($1)', [(await blocked())[0].pid]);
      expect(await catchingUp).toMatchObject({ status: 503, code: 'database_unavailable' });
    } finally {
      await session.query('ROLLBACK').catch(() => undefined);
      session.release();
      await blocker.close();
    }
  });

  describe('a database outage', () => {
    let server: PrivatePostgres;
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(async () => {
      await closeAll();
      await server?.close();
    });

    it('answers 503 while the database is down, and heals without a restart', async () => {
      const url = await server.createDatabase();
      const [a, b] = await Promise.all([open(url), open(url)]);
      // A large write in flight when the server stops: it fails (or had just finished), never crashes.
      for (let i = 0; i < 5000; i++) a.files.set(`big${i}`, file(`big${i}`, `n${i}`));
      const inFlight = a.commit().then(
        () => 200,
        (err: ApiError) => err.status,
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      await server.stop();
      expect([200, 503]).toContain(await inFlight);
      a.users.set('during', user('during'));
      await expect(a.commit()).rejects.toMatchObject({ status: 503, code: 'database_unavailable' });
      await vi.waitFor(() => expect(a.available).toBe(false));
      // Still refused while unavailable, without waiting on the network.
      a.users.set('during', user('during'));
      await expect(a.commit()).rejects.toMatchObject({ status: 503, code: 'database_unavailable' });

      await server.restart();
      await vi.waitFor(() => expect(a.available && b.available).toBe(true), { timeout: 20_000 });
      // The refused change is gone: the database's state won.
      expect(a.users.has('during')).toBe(false);
      const { rows } = await a.database!.query<{ count: string }>('SELECT count(*) FROM files');
      expect(a.files.size).toBe(Number(rows[0].count));
      b.users.set('after', user('after'));
      await b.commit();
      await vi.waitFor(() => expect(a.users.get('after')).toEqual(user('after')));
      a.users.set('again', user('again'));
      await a.commit();
    });
  });
});
