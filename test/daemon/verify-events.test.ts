/** The public verify page announces the change, so an open UI shows "Verified" at once (issue 10, item 15d). */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';
import { readOutbox, verifyLink } from '../helpers/mail.js';

describe('GET /verify', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t.close());

  it('sends a user.changed event for the verified user', async () => {
    await createUser(t, 'ana');
    await t.api('POST', '/api/user/verify', { username: 'ana' });
    const link = verifyLink((await readOutbox(t.dataDir)).find((mail) => mail.includes('Hello ana,'))!)!;

    const stream = await openEventStream(t.url, { 'API-Key': t.key });
    try {
      const page = await t.raw('GET', `${link.pathname}${link.search}`, { key: null });
      expect(page.status).toBe(200);
      await vi.waitFor(() => expect(stream.text()).toContain('"type":"user.changed","username":"ana"'), { timeout: 5000, interval: 25 });
    } finally {
      await stream.close();
    }
  });
});
