import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

describe('daemon smoke', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t.close());

  it('creates a user and lists it', async () => {
    const created = await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: 'secret123' });
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ username: 'ana', role: 'user', emailVerified: false });
    expect(created.text).not.toContain('scrypt');
    const all = await t.api('GET', '/api/user/all');
    expect(all.body.map((u: { username: string }) => u.username)).toEqual(['ana']);
  });
});
