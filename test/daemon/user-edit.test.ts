/** Editing a user without a new password keeps the old one (issue 10, item 15e). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, readDb, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

describe('POST /api/user/edit', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t.close());

  const hashOf = async (username: string) =>
    ((await readDb(t)).users as { username: string; passwordHash: string }[]).find((u) => u.username === username)?.passwordHash;

  it('keeps the password when newpassword is left out', async () => {
    await createUser(t, 'ana');
    const before = await hashOf('ana');
    const res = await t.api('POST', '/api/user/edit', { username: 'ana', newusername: 'ana.lopez', newemail: 'ana.lopez@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ username: 'ana.lopez', email: 'ana.lopez@example.com' });
    expect(await hashOf('ana.lopez')).toBe(before);
  });

  it('keeps the password when newpassword is empty', async () => {
    await createUser(t, 'bob');
    const before = await hashOf('bob');
    const res = await t.api('POST', '/api/user/edit', {
      username: 'bob',
      newusername: 'bob',
      newemail: 'bob@example.com',
      newpassword: '',
    });
    expect(res.status).toBe(201);
    expect(await hashOf('bob')).toBe(before);
  });

  it('still sets a new password when one is given, as DaneeCloud’s clients send it', async () => {
    await createUser(t, 'cat');
    const before = await hashOf('cat');
    const res = await t.api('POST', '/api/user/edit', {
      username: 'cat',
      newusername: 'cat',
      newemail: 'cat@example.com',
      newpassword: 'another-password',
    });
    expect(res.status).toBe(201);
    expect(await hashOf('cat')).not.toBe(before);
  });

  it('still refuses a new password that is too short', async () => {
    await createUser(t, 'dan');
    const res = await t.api('POST', '/api/user/edit', {
      username: 'dan',
      newusername: 'dan',
      newemail: 'dan@example.com',
      newpassword: 'short',
    });
    expect(res.status).toBe(400);
  });
});

describe('the file-name rule message', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
    await createUser(t, 'eve');
  });
  afterAll(() => t.close());

  it('lists the characters a name may not contain (issue 10, item 15i)', async () => {
    const res = await t.api('POST', '/api/folders/create', { username: 'eve', folder: 'a:b' });
    expect(res.status).toBe(400);
    for (const c of ['<', '>', ':', '"', '|', '?', '*', '/', '\\']) expect(res.body.error).toContain(c);
  });
});
