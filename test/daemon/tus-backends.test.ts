/**
 * Resumable uploads on the other backends (docs/uploads.md, "Backends"): with PostgreSQL and
 * the storage folder (one daemon) the finished file is linked into place as on the embedded
 * daemon; with an S3 bucket and one daemon it is streamed into the bucket (a copy) through
 * the same upload steps; with several daemons (PostgreSQL + S3) the door answers 501, after
 * the same authorization as files.upload.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { codeOf } from '../helpers/accounts.js';
import { createUser, startTestDaemon, storedBytes, upload, type TestDaemon } from '../helpers/daemon.js';
import { create, head, locationOf, patch } from '../helpers/tus.js';

const started: TestDaemon[] = [];
afterAll(async () => {
  for (const t of started) await t.close();
});

async function daemonOn(backend: 'postgres' | 'object' | 'cluster'): Promise<TestDaemon> {
  const t = await startTestDaemon({ backend });
  started.push(t);
  await createUser(t, 'ana');
  return t;
}

describe.each(['postgres', 'object'] as const)('one daemon on %s', (backend) => {
  it('creates, resumes and places a file, overwrite included', async () => {
    const t = await daemonOn(backend);
    const data = Buffer.from('0123456789'.repeat(5000));
    const location = locationOf(await create(t, { username: 'ana', filename: 'r.bin' }, data.length, data.subarray(0, 20_000)));
    expect((await head(t, location)).headers['upload-offset']).toBe('20000');
    expect((await patch(t, location, 20_000, data.subarray(20_000))).status).toBe(204);
    expect((await storedBytes(t, 'ana', 'r.bin')).equals(data)).toBe(true);
    await upload(t, 'ana', 'Twin.txt', 'x');
    expect(codeOf(await create(t, { username: 'ana', filename: 'twin.txt' }, 1))).toBe('name_case_conflict');
    const replaced = await create(t, { username: 'ana', filename: 'r.bin', overwrite: 'true' }, 3, Buffer.from('new'));
    expect(replaced.status).toBe(201);
    expect((await storedBytes(t, 'ana', 'r.bin')).toString()).toBe('new');
  });
});

describe('several daemons (PostgreSQL + S3)', () => {
  it('answers 501 not_implemented to a caller files.upload would admit, 401 to anyone else', async () => {
    const t = await daemonOn('cluster');
    expect((await create(t, { username: 'ana', filename: 'c.bin' }, 3, undefined, { key: null })).status).toBe(401);
    const res = await create(t, { username: 'ana', filename: 'c.bin' }, 3);
    expect([res.status, codeOf(res)]).toEqual([501, 'not_implemented']);
    expect(res.body.error).toMatch(/files\/upload/);
  });
});
