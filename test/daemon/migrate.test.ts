/**
 * `nimbus migrate` (docs/scaling.md, "Migrating"): an embedded installation made by a real
 * daemon, copied by the real command into PostgreSQL + S3 on the shared engines, served by a
 * cluster daemon exactly as before (users, roles, lists, bytes, a share link, a key, a
 * session, the trash); a run killed midway and run again completes without duplicates; then
 * `--to-data-dir` back into a new data directory that an embedded daemon serves the same.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextOf } from '../../daemon/daemon.js';
import { createLock } from '../../daemon/services/dav-locks.js';
import { patchDeadProps } from '../../daemon/services/dav-props.js';
import { createS3Client } from '../../daemon/storage/objects/s3-client.js';
import { signIn } from '../helpers/api.js';
import { makeKey } from '../helpers/accounts.js';
import { childEnv, runCli } from '../helpers/child.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';

const BADGE = 'https://example.com/gold.png';
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Everything a user of the API sees of an installation, bytes as sha256: two equal views are the same installation. */
async function viewOf(t: TestDaemon) {
  const all = await t.api('GET', '/api/user/all');
  if (!Array.isArray(all.body)) throw new Error(`user.all: ${all.status} ${all.text.slice(0, 300)} ${t.logs.slice(-3).join(' | ')}`);
  const users = (all.body as { username: string; role: string; email: string }[])
    .map(({ username, role, email }) => ({ username, role, email }))
    .sort((a, b) => a.username.localeCompare(b.username));
  const roles = ((await t.api('GET', '/api/role/all')).body as { name: string; maxStorage: number }[])
    .map(({ name, maxStorage }) => ({ name, maxStorage }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const perUser: Record<string, unknown> = {};
  for (const { username } of users) {
    const download = async (file: string, folder?: string) => {
      const res = await fetch(
        `${t.url}/api/files/download?${new URLSearchParams({ username, file, ...(folder ? { folder } : {}) }).toString()}`,
        { headers: { 'API-Key': t.key } },
      );
      expect(res.status, `${username}/${folder ?? ''}/${file}`).toBe(200);
      return sha256(Buffer.from(await res.arrayBuffer()));
    };
    type Listed = { name: string; size: number; modifiedAt: string };
    const root = (await t.api('GET', '/api/files', { username })).body.files as Listed[];
    const folders = (await t.api('GET', '/api/folders', { username })).body.folders as { name: string; modifiedAt: string }[];
    const files: string[] = [];
    for (const f of root) files.push(`${f.name} ${f.size} ${f.modifiedAt} ${await download(f.name)}`);
    for (const { name: folder, modifiedAt } of folders) {
      const inside = (await t.api('GET', '/api/folders/files', { username, folder })).body.files as Listed[];
      files.push(`${folder}/ ${modifiedAt}`);
      for (const f of inside) files.push(`${folder}/${f.name} ${f.size} ${f.modifiedAt} ${await download(f.name, folder)}`);
    }
    const trash = (
      (await t.api('GET', '/api/trash', { username })).body.items as { id: string; kind: string; name: string; size: number }[]
    )
      .map(({ id, kind, name, size }) => `${id} ${kind} ${name} ${size}`)
      .sort();
    perUser[username] = { files: files.sort(), trash };
  }
  return { users, roles, perUser };
}

async function migrate(args: string[], env: Record<string, string>) {
  const run = runCli(['migrate', ...args], childEnv(env));
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

describe('nimbus migrate', () => {
  let source: TestDaemon;
  let env: Record<string, string>;
  let before: Awaited<ReturnType<typeof viewOf>>;
  let shareUrl: string;
  let personalKey: string;
  let cookie: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    // The embedded installation, made by a real daemon.
    source = await startTestDaemon({ backend: 'embedded' });
    await createUser(source, 'alice');
    await createUser(source, 'bob');
    expect((await source.api('POST', '/api/role/create', { name: 'gold', maxStorage: '64', badge: BADGE })).status).toBe(201);
    expect((await source.api('POST', '/api/user/role', { username: 'bob', name: 'gold' })).status).toBe(201);
    expect((await upload(source, 'alice', 'notes.txt', 'hello from alice')).status).toBe(201);
    expect((await upload(source, 'alice', 'empty.txt', '')).status).toBe(201);
    expect((await upload(source, 'alice', 'naïve ☃ résumé.txt', 'unicode ✓')).status).toBe(201);
    expect((await source.api('POST', '/api/folders/create', { username: 'alice', folder: 'docs' })).status).toBe(201);
    expect((await source.api('POST', '/api/folders/create', { username: 'alice', folder: 'empty folder' })).status).toBe(201);
    expect((await upload(source, 'alice', 'big.bin', randomBytes(3 * 1024 * 1024 + 17), { folder: 'docs' })).status).toBe(201);
    expect((await upload(source, 'alice', 'kept.txt', 'kept', { folder: 'docs' })).status).toBe(201);
    expect((await upload(source, 'alice', 'gone.txt', 'trashed file', { folder: 'docs' })).status).toBe(201);
    expect((await source.api('POST', '/api/files/delete', { username: 'alice', file: 'gone.txt', folder: 'docs' })).status).toBe(200);
    expect((await source.api('POST', '/api/folders/create', { username: 'bob', folder: 'old' })).status).toBe(201);
    expect((await upload(source, 'bob', 'a.txt', 'bob a', { folder: 'old' })).status).toBe(201);
    expect((await upload(source, 'bob', 'b.txt', 'bob b', { folder: 'old' })).status).toBe(201);
    expect((await source.api('POST', '/api/folders/delete', { username: 'bob', folder: 'old' })).status).toBe(200);
    // Enough files that a run killed after its first one is killed midway.
    for (let i = 0; i < 40; i++) expect((await upload(source, 'bob', `bulk-${i}.bin`, randomBytes(256 * 1024))).status).toBe(201);
    const shared = await source.api('POST', '/api/files/share', { username: 'alice', file: 'notes.txt' });
    shareUrl = new URL(shared.body.file.shareUrl as string).pathname;
    const session = await signIn(source, 'alice');
    cookie = session.cookie;
    personalKey = await makeKey(source, { cookie: cookie.slice('nimbus_session='.length) }, 'laptop', 'read');
    // WebDAV's state (docs/webdav.md): record collections, carried like the others.
    const prop = { ns: 'urn:x', name: 'colour', xml: '<x:colour xmlns:x="urn:x">blue</x:colour>' };
    await patchDeadProps(contextOf(source.daemon), 'alice', 'docs/kept.txt', [prop], []);
    const davLock = { username: 'alice', path: 'locked-name.txt', depth: '0', scope: 'shared', owner: '', timeoutSeconds: 3600 } as const;
    await createLock(contextOf(source.daemon), davLock);
    // Seen after a restart: what the disk holds, as every daemon after it (a running index may keep a folder's older mtime).
    await source.stop();
    await source.restart();
    before = await viewOf(source);
    await source.stop();
    env = await clusterEnv();
  }, 120_000);

  afterAll(async () => {
    await source?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('refuses while a daemon runs on the data directory', async () => {
    await source.restart();
    try {
      const run = await migrate(['--data-dir', source.dataDir], env);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/Another Nimbus daemon .* is using this data directory/);
    } finally {
      await source.stop();
    }
  }, 60_000);

  it('copies everything into PostgreSQL + S3, resumably, and a cluster daemon serves the same', async () => {
    // Killed after its first file: some rows and objects are there, most are not.
    const first = runCli(['migrate', '--data-dir', source.dataDir], childEnv(env));
    await new Promise<void>((resolve, reject) => {
      const onData = () => {
        if (/Copied 1\//.test(first.stdout())) {
          first.child.kill('SIGKILL');
          resolve();
        }
      };
      first.child.stdout!.on('data', onData);
      void first.exited.then(() => reject(new Error(`migrate ended before it was killed: ${first.stdout()} ${first.stderr()}`)));
    });
    expect(await first.exited).toBe('SIGKILL');

    const second = await migrate(['--data-dir', source.dataDir], env);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain('Carrying on with an earlier run');
    expect(second.stdout).toContain('Verified: every count equal');
    expect(second.stdout).toMatch(/users\s+2\s+2/);

    // Nothing twice: one row and one object per file (47 files: 3 + 3 in docs + 2 in the trashed folder + 40, and the trashed file).
    const files = 3 + 2 + 1 + 2 + 40;
    const db = new pg.Client({ connectionString: env.NIMBUS_DATABASE_URL });
    await db.connect();
    try {
      expect(Number((await db.query('SELECT count(*) AS n FROM files')).rows[0].n)).toBe(files);
      expect(Number((await db.query('SELECT count(*) AS n FROM folders')).rows[0].n)).toBe(3);
      const props = await db.query(`SELECT username, path, data->'props'->0->>'xml' AS xml FROM "davProps"`);
      expect(props.rows).toEqual([{ username: 'alice', path: 'docs/kept.txt', xml: '<x:colour xmlns:x="urn:x">blue</x:colour>' }]);
      expect((await db.query(`SELECT username, path FROM "davLocks"`)).rows).toEqual([{ username: 'alice', path: 'locked-name.txt' }]);
    } finally {
      await db.end();
    }
    const s3 = createS3Client({
      endpoint: env.NIMBUS_S3_ENDPOINT,
      region: env.NIMBUS_S3_REGION,
      accessKeyId: env.NIMBUS_S3_ACCESS_KEY_ID,
      secretAccessKey: env.NIMBUS_S3_SECRET_ACCESS_KEY,
      forcePathStyle: true,
    });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: env.NIMBUS_S3_BUCKET }));
    s3.destroy();
    expect(listed.KeyCount).toBe(files);

    // Run again on a finished migration: nothing to copy, still verified.
    const third = await migrate(['--data-dir', source.dataDir], env);
    expect(third.code, third.stderr).toBe(0);

    // Back (before the cluster daemon changes anything): into a new data directory, which an embedded daemon serves the same.
    const back = path.join(await mkdtemp(path.join(os.tmpdir(), 'nimbus-back-')), 'data');
    dirs.push(path.dirname(back));
    const returned = await migrate(['--to-data-dir', back], env);
    expect(returned.code, returned.stdout + returned.stderr).toBe(0);
    expect(returned.stdout).toContain('Verified: every count equal');
    const embedded = await startTestDaemon({ dataDir: back, backend: 'embedded' });
    try {
      expect(await viewOf(embedded)).toEqual(before);
      expect((await embedded.raw('GET', shareUrl, { key: null })).text).toBe('hello from alice');
      expect((await embedded.api('GET', '/api/files', { username: 'alice' }, { key: personalKey })).status).toBe(200);
    } finally {
      await embedded.stop();
    }

    const cluster = await startTestDaemon({ env, backend: 'embedded' });
    try {
      expect(cluster.daemon.storageDir).toBeDefined();
      expect(await viewOf(cluster)).toEqual(before);
      const link = await cluster.raw('GET', shareUrl, { key: null });
      expect(link.status).toBe(200);
      expect(link.text).toBe('hello from alice');
      expect((await cluster.api('GET', '/api/files', { username: 'alice' }, { key: personalKey })).status).toBe(200);
      const me = await cluster.api('GET', '/api/auth/me', {}, { key: null, headers: { Cookie: cookie, Origin: cluster.url } });
      expect(me.status, me.text).toBe(200);
      expect(me.body.user?.username ?? me.body.username).toBe('alice');
      // The trash items are the cluster's own now: a file goes back into its folder, a folder with its files.
      const items = (await cluster.api('GET', '/api/trash', { username: 'alice' })).body.items as { id: string }[];
      expect((await cluster.api('POST', '/api/trash/restore', { username: 'alice', id: items[0].id })).status).toBe(201);
      const docs = (await cluster.api('GET', '/api/folders/files', { username: 'alice', folder: 'docs' })).body.files as { name: string }[];
      expect(docs.map((f) => f.name)).toContain('gone.txt');
      const old = (await cluster.api('GET', '/api/trash', { username: 'bob' })).body.items as { id: string }[];
      expect((await cluster.api('POST', '/api/trash/restore', { username: 'bob', id: old[0].id })).status).toBe(201);
      const restored = (await cluster.api('GET', '/api/folders/files', { username: 'bob', folder: 'old' })).body.files as {
        name: string;
      }[];
      expect(restored.map((f) => f.name).sort()).toEqual(['a.txt', 'b.txt']);
    } finally {
      await cluster.close();
    }
  }, 240_000);

  it('with PostgreSQL alone moves the records only: a daemon on the same data directory serves the same', async () => {
    const { NIMBUS_DATABASE_URL } = await clusterEnv({ database: true });
    const run = await migrate(['--data-dir', source.dataDir], { NIMBUS_DATABASE_URL });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/The 48 files \(.*\) stay in /);
    const onPostgres = await startTestDaemon({ dataDir: source.dataDir, env: { NIMBUS_DATABASE_URL }, backend: 'embedded' });
    try {
      expect(await viewOf(onPostgres)).toEqual(before);
      expect((await onPostgres.raw('GET', shareUrl, { key: null })).text).toBe('hello from alice');
    } finally {
      await onPostgres.stop();
    }
  }, 120_000);

  it('fails naming a file whose object does not hold its bytes', async () => {
    const target = await clusterEnv();
    expect((await migrate(['--data-dir', source.dataDir], target)).code).toBe(0);
    const db = new pg.Client({ connectionString: target.NIMBUS_DATABASE_URL });
    await db.connect();
    const id = (await db.query<{ key: string }>("SELECT key FROM files WHERE name = 'notes.txt'")).rows[0].key;
    await db.end();
    // Same length, other bytes: only the checksum can tell.
    const s3 = createS3Client({
      endpoint: target.NIMBUS_S3_ENDPOINT,
      region: target.NIMBUS_S3_REGION,
      accessKeyId: target.NIMBUS_S3_ACCESS_KEY_ID,
      secretAccessKey: target.NIMBUS_S3_SECRET_ACCESS_KEY,
      forcePathStyle: true,
    });
    await s3.send(new PutObjectCommand({ Bucket: target.NIMBUS_S3_BUCKET, Key: `files/${id}`, Body: 'HELLO FROM ALICE' }));
    s3.destroy();
    const run = await migrate(['--data-dir', source.dataDir], target);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("MISMATCH alice/notes.txt: the object's sha256 differs from the file's");
    expect(run.stderr).toContain('NOT verified: 1 mismatch(es)');
  }, 120_000);

  it("refuses a database holding another installation's data, and a non-empty target directory", async () => {
    const other = await clusterEnv();
    const daemon = await startTestDaemon({ env: other, backend: 'embedded' });
    await createUser(daemon, 'someone');
    await daemon.close();
    const refused = await migrate(['--data-dir', source.dataDir], other);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("already holds another installation's data (1 users");

    // The database the first test migrated into holds that installation's migration: another source is refused.
    const stranger = await mkdtemp(path.join(os.tmpdir(), 'nimbus-stranger-'));
    dirs.push(stranger);
    await writeFile(
      path.join(stranger, 'db.json'),
      JSON.stringify({ schema: 1, users: [], roles: [], shares: [], keys: [], verifications: [] }),
    );
    const second = await migrate(['--data-dir', stranger], env);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('holds a migration from another installation');

    const full = await mkdtemp(path.join(os.tmpdir(), 'nimbus-full-'));
    dirs.push(full);
    await mkdir(path.join(full, 'something'));
    const notEmpty = await migrate(['--to-data-dir', full], env);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toContain('is not empty');
  }, 120_000);
});
