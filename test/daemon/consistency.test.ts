/**
 * What mutations do to related records: concurrent creates, a role rename moving its
 * users, a user delete taking files and links with it, and a store write that fails.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { createUser, readDb, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

describe('concurrent mutations', () => {
  it('creates a user once when ten requests race for the name', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.api('POST', '/api/user/create', { username: 'race', email: `race${i}@example.com`, password: 'password123' }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    const db = await readDb(t);
    expect(db.users.filter((u: { username: string }) => u.username === 'race')).toHaveLength(1);
  });

  it('keeps every one of many concurrent creates (group commit)', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `many${i}`);
    const results = await Promise.all(
      names.map((username) => t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: 'password123' })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const stored = new Set((await readDb(t)).users.map((u: { username: string }) => u.username));
    expect(names.filter((n) => !stored.has(n))).toEqual([]);
  });

  it('shares a file once when two requests race', async () => {
    await createUser(t, 'sharer');
    await upload(t, 'sharer', 'a.txt', 'x');
    const results = await Promise.all([0, 1, 2].map(() => t.api('POST', '/api/files/share', { username: 'sharer', file: 'a.txt' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect((await readDb(t)).shares.filter((s: { username: string }) => s.username === 'sharer')).toHaveLength(1);
  });
});

describe('racing uploads', () => {
  beforeAll(async () => {
    await createUser(t, 'racer');
  });

  it('stores one of two uploads of a new name, whole, and refuses the other with 409', async () => {
    const bodies = [Buffer.alloc(300_000, 'a'), Buffer.alloc(200_000, 'b')];
    const results = await Promise.all(
      bodies.map((body) => t.api('POST', '/api/files/upload', { username: 'racer', file: 'same.bin' }, { body: new Uint8Array(body) })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const winner = bodies[results.findIndex((r) => r.status === 201)];
    const stored = Buffer.from(
      await (await fetch(`${t.url}/api/files/download?username=racer&file=same.bin`, { headers: { 'API-Key': t.key } })).arrayBuffer(),
    );
    expect(stored.equals(winner)).toBe(true);
    expect((await t.api('GET', '/api/user', { username: 'racer' })).body.usage.usedBytes).toBe(winner.length);
  });

  it('ends with one whole body when overwrites race, never a mix', async () => {
    const bodies = ['x', 'y', 'z'].map((c) => Buffer.alloc(250_000, c));
    const results = await Promise.all(
      bodies.map((body) =>
        t.api('POST', '/api/files/upload', { username: 'racer', file: 'over.bin', overwrite: 'true' }, { body: new Uint8Array(body) }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
    const stored = Buffer.from(
      await (await fetch(`${t.url}/api/files/download?username=racer&file=over.bin`, { headers: { 'API-Key': t.key } })).arrayBuffer(),
    );
    expect(bodies.some((b) => b.equals(stored))).toBe(true);
  });

  it('renames a file to its own name as a no-op that keeps its link', async () => {
    await upload(t, 'racer', 'self.txt', 'me');
    const link = (await t.api('POST', '/api/files/share', { username: 'racer', file: 'self.txt' })).body.file.shareUrl;
    const res = await t.api('POST', '/api/files/rename', { username: 'racer', file: 'self.txt', newname: 'self.txt' });
    expect(res.status).toBe(201);
    expect(res.body.file).toMatchObject({ name: 'self.txt', shared: true, shareUrl: link });
  });

  it('renames a file changing only the case of its name', async () => {
    await upload(t, 'racer', 'case.txt', 'c');
    const res = await t.api('POST', '/api/files/rename', { username: 'racer', file: 'case.txt', newname: 'CASE.txt' });
    expect(res.status, res.text).toBe(201);
    const names = (await t.api('GET', '/api/files', { username: 'racer' })).body.files.map((f: { name: string }) => f.name);
    expect(names).toContain('CASE.txt');
    expect(names).not.toContain('case.txt');
  });
});

describe('related records', () => {
  it('moves a role’s users with it when the role is renamed', async () => {
    await t.api('POST', '/api/role/create', { name: 'bronze', maxStorage: '5', badge: 'https://example.com/b.png' });
    await createUser(t, 'holder');
    await t.api('POST', '/api/user/role', { username: 'holder', name: 'bronze' });
    await t.api('POST', '/api/role/edit', { name: 'bronze', newname: 'copper', maxStorage: '7', badge: 'https://example.com/c.png' });
    const user = (await t.api('GET', '/api/user', { username: 'holder' })).body;
    expect(user.role).toBe('copper');
    expect(user.usage.maxBytes).toBe(7 * 1048576);
    expectErrorBody(await t.api('GET', '/api/role', { name: 'bronze' }), 404, 'role_not_found');
    expectErrorBody(await t.api('POST', '/api/role/delete', { name: 'copper' }), 409, 'role_in_use');
    await t.api('POST', '/api/user/role', { username: 'holder', name: 'user' });
    expect((await t.api('POST', '/api/role/delete', { name: 'copper' })).status).toBe(200);
  });

  it('deletes a user’s files, folders, links and pending verification with the user', async () => {
    await createUser(t, 'goner');
    await t.api('POST', '/api/folders/create', { username: 'goner', folder: 'docs' });
    await upload(t, 'goner', 'a.txt', 'x', { folder: 'docs' });
    const link = (await t.api('POST', '/api/files/share', { username: 'goner', file: 'a.txt', folder: 'docs' })).body.file
      .shareUrl as string;
    await t.api('POST', '/api/user/verify', { username: 'goner' });
    expect((await t.api('POST', '/api/user/delete', { username: 'goner' })).status).toBe(200);
    expect(existsSync(path.join(t.storageDir, 'goner'))).toBe(false);
    expect((await t.raw('GET', new URL(link).pathname, { key: null })).status).toBe(404);
    const db = await readDb(t);
    expect(db.shares.some((s: { username: string }) => s.username === 'goner')).toBe(false);
    expect(db.verifications.some((v: { username: string }) => v.username === 'goner')).toBe(false);
    // The name can be used again, and starts empty.
    await createUser(t, 'goner');
    expect((await t.api('GET', '/api/folders', { username: 'goner' })).body.folders).toEqual([]);
    expect((await t.api('GET', '/api/user', { username: 'goner' })).body.usage.usedBytes).toBe(0);
  });

  it('moves a user’s files with a rename, and frees the old name', async () => {
    await createUser(t, 'before');
    await upload(t, 'before', 'f.txt', 'mine');
    await t.api('POST', '/api/user/edit', {
      username: 'before',
      newusername: 'after',
      newemail: 'before@example.com',
      newpassword: 'password123',
    });
    expect((await t.api('GET', '/api/files/download', { username: 'after', file: 'f.txt' })).text).toBe('mine');
    expectErrorBody(await t.api('GET', '/api/user', { username: 'before' }), 404, 'user_not_found');
    expect(existsSync(path.join(t.storageDir, 'before'))).toBe(false);
  });

  it('keeps the e-mail verified when only the password changes, and clears it with a new address', async () => {
    await createUser(t, 'ver');
    await t.api('POST', '/api/user/verify', { username: 'ver' });
    const { readOutbox, verifyLink } = await import('../helpers/mail.js');
    const mail = (await readOutbox(t.dataDir)).find((m) => m.includes('Hello ver,'))!;
    const link = verifyLink(mail)!;
    await t.raw('GET', `${link.pathname}${link.search}`, { key: null });
    const same = await t.api('POST', '/api/user/edit', {
      username: 'ver',
      newusername: 'ver',
      newemail: 'ver@example.com',
      newpassword: 'another-password',
    });
    expect(same.body.user.emailVerified).toBe(true);
    const moved = await t.api('POST', '/api/user/edit', {
      username: 'ver',
      newusername: 'ver',
      newemail: 'ver@new.example',
      newpassword: 'another-password',
    });
    expect(moved.body.user.emailVerified).toBe(false);
  });
});

// db.json made unwritable: the embedded store's failure (a database outage is
// test/daemon/cluster-*.test.ts's).
onDisk(() => {
  describe('a store write that fails', () => {
    it('answers 500 internal without details, acknowledges nothing, and keeps working once the disk is back', async () => {
      const db = path.join(t.dataDir, 'db.json');
      const saved = await readDb(t.dataDir);
      // A non-empty directory where db.json should be: the atomic rename over it fails.
      await rm(db);
      await mkdir(path.join(db, 'blocker'), { recursive: true });
      try {
        const res = await t.api('POST', '/api/role/create', { name: 'lost', maxStorage: '1', badge: 'https://example.com/l.png' });
        expectErrorBody(res, 500, 'internal');
        expect(res.body.error).toBe('Internal error');
        expect(res.text).not.toMatch(/db\.json|EISDIR|ENOTDIR|\n\s+at /);
        expect(t.logs.some((l) => l.includes('internal error'))).toBe(true);
        // Not acknowledged, so not there.
        expectErrorBody(await t.api('GET', '/api/role', { name: 'lost' }), 404, 'role_not_found');
      } finally {
        await rm(db, { recursive: true, force: true });
        await writeFile(db, JSON.stringify(saved));
      }
      expect((await t.api('POST', '/api/role/create', { name: 'kept', maxStorage: '1', badge: 'https://example.com/k.png' })).status).toBe(
        201,
      );
      const after = await readDb(t.dataDir);
      expect(after.roles.map((r: { name: string }) => r.name)).toContain('kept');
      expect(after.roles.map((r: { name: string }) => r.name)).not.toContain('lost');
    });
  });
});
