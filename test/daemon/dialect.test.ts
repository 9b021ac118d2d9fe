/**
 * Response dialects: a key created with dialect=daneecloud gets DaneeCloud's bodies (users,
 * lists of names, the dash's display strings); nimbus keys and the admin key keep Nimbus's
 * records; errors are `{error, code}` in both; the admin key's dialect is NIMBUS_ADMIN_DIALECT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { longDuration } from '../../daemon/http/dialect.js';
import { createUser, editDb, readDb, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;
let danee: string;
let nimbus: string;

beforeAll(async () => {
  t = await startTestDaemon();
  const made = await t.api('POST', '/api/keys/create', { label: 'bot', scope: 'admin', dialect: 'daneecloud' });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ label: 'bot', scope: 'admin', dialect: 'daneecloud' });
  danee = made.body.key;
  nimbus = (await t.api('POST', '/api/keys/create', { label: 'ui', scope: 'read' })).body.key;
  await createUser(t, 'ana');
  await upload(t, 'ana', 'b.txt', Buffer.alloc(1536 * 1024));
  await upload(t, 'ana', 'a.txt', 'hello');
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'photos' });
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
  await upload(t, 'ana', 'beach.jpg', 'jpg', { folder: 'photos' });
  await t.api('POST', '/api/files/share', { username: 'ana', file: 'a.txt' });
  await t.api('POST', '/api/files/share', { username: 'ana', folder: 'photos', file: 'beach.jpg' });
});
afterAll(() => t.close());

describe('the dialect of a key', () => {
  it('is stored with the key hash and listed, nimbus by default', async () => {
    const keys = (await t.api('GET', '/api/keys')).body.keys;
    expect(keys).toEqual([
      expect.objectContaining({ label: 'admin', dialect: 'nimbus' }),
      expect.objectContaining({ label: 'bot', dialect: 'daneecloud' }),
      expect.objectContaining({ label: 'ui', dialect: 'nimbus' }),
    ]);
    const db = await readDb(t);
    // In any order: the store keeps no order of records (PostgreSQL returns them by key).
    expect(db.keys.map((k: { label: string; dialect: string }) => [k.label, k.dialect]).sort()).toEqual([
      ['bot', 'daneecloud'],
      ['ui', 'nimbus'],
    ]);
    expect(JSON.stringify(db)).not.toContain(danee);
  });

  it('daneecloud: a user is DaneeCloud’s record', async () => {
    const res = await t.api('GET', '/api/user', { username: 'ana' }, { key: danee });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      username: 'ana',
      email: 'ana@example.com',
      usedStorage: 1.5,
      isVerified: false,
      files: ['a.txt', 'b.txt'],
      folders: ['docs', 'photos'],
      sharedFiles: ['a.txt', 'photos/beach.jpg'],
      role: 'user',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const all = await t.api('GET', '/api/user/all', {}, { key: danee });
    expect(all.body).toEqual([res.body]);
    expect(all.headers.get('X-Total-Count')).toBe('1');
  });

  it('daneecloud: usedStorage is MB with two decimals', async () => {
    await createUser(t, 'bo');
    await upload(t, 'bo', 'x.bin', Buffer.alloc(12_345));
    expect((await t.api('GET', '/api/user', { username: 'bo' }, { key: danee })).body.usedStorage).toBe(0.01);
    await t.api('POST', '/api/user/delete', { username: 'bo' });
  });

  it('daneecloud: file and folder lists are names, paged as before', async () => {
    expect((await t.api('GET', '/api/files', { username: 'ana' }, { key: danee })).body).toEqual({ files: ['a.txt', 'b.txt'] });
    expect((await t.api('GET', '/api/folders', { username: 'ana' }, { key: danee })).body).toEqual({ folders: ['docs', 'photos'] });
    expect((await t.api('GET', '/api/folders/files', { username: 'ana', folder: 'photos' }, { key: danee })).body).toEqual({
      files: ['beach.jpg'],
    });
    const page = await t.api('GET', '/api/files', { username: 'ana', limit: '1', offset: '1' }, { key: danee });
    expect(page.body).toEqual({ files: ['b.txt'] });
    expect(page.headers.get('X-Total-Count')).toBe('2');
    expect(page.headers.get('Content-Type')).toMatch(/^application\/json/);
  });

  it('daneecloud: the dash is display strings', async () => {
    const res = await t.api('GET', '/api/dash', {}, { key: danee });
    expect(res.body).toEqual({
      cpuUsage: expect.stringMatching(/^\d+(\.\d{1,2})? %$/),
      ramUsage: expect.stringMatching(/^\d+ MB$/),
      uptime: expect.stringMatching(/^\d+ (ms|seconds?|minutes?|hours?|days?)$/),
      version: expect.stringMatching(/^v\d+\.\d+\.\d+/),
      developer: 'Nimbus',
      license: 'MIT',
    });
  });

  it('daneecloud: the user in create, edit and role answers is DaneeCloud’s too', async () => {
    const made = await t.api(
      'POST',
      '/api/user/create',
      { username: 'cy', email: 'cy@example.com', password: 'password1' },
      { key: danee },
    );
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ msg: 'User created', user: expect.objectContaining({ username: 'cy', usedStorage: 0, files: [] }) });
    expect(made.body.user.usage).toBeUndefined();
    const role = await t.api('POST', '/api/user/role', { username: 'cy', name: 'admin' }, { key: danee });
    expect(role.body.user).toMatchObject({ role: 'admin', isVerified: false });
    await t.api('POST', '/api/user/delete', { username: 'cy' });
  });

  it('errors keep {error, code} in both dialects', async () => {
    for (const key of [danee, nimbus]) {
      const res = await t.api('GET', '/api/user', { username: 'nobody' }, { key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'User not found', code: 'user_not_found' });
    }
    const folder = await t.api('GET', '/api/folders/files', { username: 'ana', folder: 'nope' }, { key: danee });
    expect(folder.body).toEqual({ error: 'Folder not found', code: 'folder_not_found' });
  });

  it('nimbus keys and the admin key keep Nimbus’s records', async () => {
    for (const key of [nimbus, t.key]) {
      const user = (await t.api('GET', '/api/user', { username: 'ana' }, { key })).body;
      expect(Object.keys(user).sort()).toEqual(['createdAt', 'email', 'emailVerified', 'role', 'usage', 'username']);
      expect(user.usage.usedBytes).toBe(1536 * 1024 + 5 + 3);
      const files = (await t.api('GET', '/api/files', { username: 'ana' }, { key })).body.files;
      expect(files.map((f: { name: string }) => f.name)).toEqual(['a.txt', 'b.txt']);
      expect(files[0]).toMatchObject({ folder: null, size: 5, shared: true });
      const folders = (await t.api('GET', '/api/folders', { username: 'ana' }, { key })).body.folders;
      expect(folders[1]).toMatchObject({ name: 'photos', fileCount: 1 });
      const dash = (await t.api('GET', '/api/dash', {}, { key })).body;
      expect(typeof dash.uptime).toBe('number');
      expect(dash.storage).toBeDefined();
    }
  });

  it('a key made before dialects (no dialect in db.json) is nimbus', async () => {
    const other = await startTestDaemon();
    try {
      const key = (await other.api('POST', '/api/keys/create', { label: 'old', scope: 'read' })).body.key;
      await other.stop();
      await editDb(other, (db) => {
        delete db.keys[0].dialect;
      });
      await other.restart();
      expect((await other.api('GET', '/api/keys')).body.keys[1]).toMatchObject({ label: 'old', dialect: 'nimbus' });
      expect((await other.api('GET', '/api/dash', {}, { key })).body.storage).toBeDefined();
    } finally {
      await other.close();
    }
  });
});

describe('NIMBUS_ADMIN_DIALECT', () => {
  it('daneecloud gives the admin key DaneeCloud’s bodies and says so in /api/keys', async () => {
    const d = await startTestDaemon({ env: { NIMBUS_ADMIN_DIALECT: 'daneecloud' } });
    try {
      expect((await d.api('GET', '/api/keys')).body.keys[0]).toMatchObject({ label: 'admin', dialect: 'daneecloud' });
      expect((await d.api('GET', '/api/dash')).body).toMatchObject({ developer: 'Nimbus', uptime: expect.any(String) });
    } finally {
      await d.close();
    }
  });

  it('refuses an unknown value at start', async () => {
    await expect(startTestDaemon({ env: { NIMBUS_ADMIN_DIALECT: 'danee' } })).rejects.toThrow(/NIMBUS_ADMIN_DIALECT/);
  });
});

describe('longDuration (the ms package’s long form)', () => {
  it('formats as DaneeCloud’s dash did', () => {
    expect(longDuration(0)).toBe('0 ms');
    expect(longDuration(1000)).toBe('1 second');
    expect(longDuration(59_000)).toBe('59 seconds');
    expect(longDuration(60_000)).toBe('1 minute');
    expect(longDuration(90_000)).toBe('2 minutes');
    expect(longDuration(3_600_000)).toBe('1 hour');
    expect(longDuration(3 * 86_400_000)).toBe('3 days');
  });
});
