/**
 * Issue 26: what one daemon of a cluster made, another's /dav/ finds at once. Two daemons on one
 * PostgreSQL database and one bucket; each round PUTs a file and makes a folder through A and
 * reads them through B in the very next request. Every round must hold, not most.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeUser, passwordOf, show } from '../helpers/accounts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { dav } from '../helpers/dav.js';
import { clusterEnv } from '../helpers/engines.js';

const ROUNDS = 20;
let a: TestDaemon;
let b: TestDaemon;
const auth: [string, string] = ['pia', passwordOf('pia')];

beforeAll(async () => {
  const env = await clusterEnv();
  a = await startTestDaemon({ env, backend: 'embedded' });
  b = await startTestDaemon({ env, backend: 'embedded' });
  await makeUser(a, 'pia');
}, 120_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
});

it('finds through B a file and a folder made through A a moment ago, every round', { timeout: 120_000 }, async () => {
  for (let i = 0; i < ROUNDS; i++) {
    expect((await dav(a, 'PUT', `/dav/pia/file-${i}.txt`, { auth, body: `round ${i}` })).status).toBe(201);
    const read = await dav(b, 'GET', `/dav/pia/file-${i}.txt`, { auth });
    expect(read.status, `round ${i}: ${show(read)}`).toBe(200);
    expect(read.text).toBe(`round ${i}`);
    expect((await dav(a, 'MKCOL', `/dav/pia/folder-${i}`, { auth })).status).toBe(201);
    const listed = await dav(b, 'PROPFIND', `/dav/pia/folder-${i}/`, { auth, headers: { Depth: '0' } });
    expect(listed.status, `round ${i}: ${show(listed)}`).toBe(207);
  }
});
