/**
 * Resumable uploads on the other backends with one daemon (docs/uploads.md, "Backends"): with
 * PostgreSQL and the storage folder the finished file is linked into place as on the embedded
 * daemon; with an S3 bucket it is streamed into the bucket (a copy) through the same upload
 * steps. Several daemons (PostgreSQL + S3, each serving any request of an upload) are
 * test/daemon/tus-cluster.test.ts and tus-cluster-client.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { codeOf } from '../helpers/accounts.js';
import { createUser, startTestDaemon, storedBytes, upload, type TestDaemon } from '../helpers/daemon.js';
import { create, head, locationOf, patch } from '../helpers/tus.js';

const started: TestDaemon[] = [];
afterAll(async () => {
  for (const t of started) await t.close();
});

async function daemonOn(backend: 'postgres' | 'object'): Promise<TestDaemon> {
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
