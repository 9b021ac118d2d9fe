/**
 * What the explorer needs to speak the person's language (issue 29, item 4): a quota refusal
 * carries the bytes it needed and the bytes free, and a renamed restore takes its bracketed
 * word from the caller ("obnoveno" in Czech), "restored" by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

const MIB = 1024 * 1024;
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon();
  await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
  for (const username of ['full', 'over', 'bin']) await createUser(t, username);
  for (const username of ['full', 'over']) await t.api('POST', '/api/user/role', { username, name: 'small' });
});
afterAll(() => t.close());

describe('a quota refusal', () => {
  it('says the bytes an upload needed and the bytes left, beside the daemon’s own message', async () => {
    await upload(t, 'full', 'first.bin', Buffer.alloc(MIB - 1000));
    const refused = await t.api('POST', '/api/files/upload', { username: 'full', file: 'second.bin' }, { body: new Uint8Array(5000) });
    expectErrorBody(refused, 507, 'quota_exceeded');
    expect(refused.body).toMatchObject({ needed: 5000, available: 1000 });
    expect(refused.body.error).toMatch(/^Storage quota exceeded/);
  });

  it('says 0 bytes left for a user already over the quota', async () => {
    await t.api('POST', '/api/user/role', { username: 'over', name: 'user' });
    await upload(t, 'over', 'big.bin', Buffer.alloc(2 * MIB));
    await t.api('POST', '/api/user/role', { username: 'over', name: 'small' });
    const refused = await t.api('POST', '/api/files/upload', { username: 'over', file: 'more.bin' }, { body: 'x'.repeat(10) });
    expectErrorBody(refused, 507, 'quota_exceeded');
    expect(refused.body).toMatchObject({ needed: 10, available: 0 });
  });
});

describe('a renamed restore', () => {
  async function trashedAndTaken(file: string): Promise<string> {
    await upload(t, 'bin', file, 'old');
    expect((await t.api('POST', '/api/files/delete', { username: 'bin', file })).status).toBe(200);
    await upload(t, 'bin', file, 'new');
    const items = (await t.api('GET', '/api/trash', { username: 'bin' })).body.items as { id: string; name: string }[];
    return items.find((item) => item.name === file)!.id;
  }

  it('puts the caller’s word in the brackets', async () => {
    const id = await trashedAndTaken('zpráva.txt');
    const res = await t.api('POST', '/api/trash/restore', { username: 'bin', id, rename: 'true', suffix: 'obnoveno' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.restored).toEqual({ kind: 'file', name: 'zpráva (obnoveno).txt', folder: null });
  });

  it('says “restored” when the caller names no word', async () => {
    const id = await trashedAndTaken('report.txt');
    const res = await t.api('POST', '/api/trash/restore', { username: 'bin', id, rename: 'true' });
    expect(res.body.restored.name).toBe('report (restored).txt');
  });

  it('refuses a word with a slash, a control character or over 40 characters, and changes nothing', async () => {
    const id = await trashedAndTaken('kept.txt');
    for (const suffix of ['a/b', 'tab\there', 'x'.repeat(41), 'dot.']) {
      const res = await t.api('POST', '/api/trash/restore', { username: 'bin', id, rename: 'true', suffix });
      expectErrorBody(res, 400, 'invalid_parameter');
    }
    const items = (await t.api('GET', '/api/trash', { username: 'bin' })).body.items as { id: string }[];
    expect(items.map((item) => item.id)).toContain(id);
  });
});
