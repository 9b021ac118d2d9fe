/** The wrong-credential throttle: it slows down wrong keys, and only wrong keys. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

/** Sends wrong keys one by one until the daemon answers 429 (it must, well before 100). */
async function getBlocked(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const res = await t.api('GET', '/api/dash', {}, { key: `wrong-key-${i}-xxxxxxxxxxxxxxxxxxxx` });
    if (res.status === 429) return;
    expect(res.status).toBe(401);
  }
  throw new Error('wrong keys were never throttled');
}

describe('a client blocked for wrong keys', () => {
  beforeAll(getBlocked);

  it('still gets 401 (not 429) for a request with no key at all', async () => {
    const none = await t.api('GET', '/api/dash', {}, { key: null });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthorized');
    expect(none.headers.get('retry-after')).toBeNull();
    const emptyBearer = await t.api('GET', '/api/dash', {}, { key: null, headers: { Authorization: 'Bearer ' } });
    expect(emptyBearer.status).toBe(401);
  });

  it('keeps answering 429 to further wrong keys, and 200 to the right one', async () => {
    const wrong = await t.api('GET', '/api/dash', {}, { key: 'yet-another-wrong-key-xxxxxxxxxxxx' });
    expect(wrong.status).toBe(429);
    expect(Number(wrong.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await t.api('GET', '/api/dash')).status).toBe(200);
  });
});
