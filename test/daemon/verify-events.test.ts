/** The public verify page announces the change, so an open UI shows "Verified" at once (issue 10, item 15d). */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
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

    const controller = new AbortController();
    const stream = await fetch(`${t.url}/api/events`, { headers: { 'API-Key': t.key }, signal: controller.signal });
    let text = '';
    const reading = (async () => {
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          text += value;
        }
      } catch {
        // aborted below
      }
    })();
    try {
      const page = await t.raw('GET', `${link.pathname}${link.search}`, { key: null });
      expect(page.status).toBe(200);
      await vi.waitFor(() => expect(text).toContain('"type":"user.changed","username":"ana"'), { timeout: 5000, interval: 25 });
    } finally {
      controller.abort();
      await reading;
    }
  });
});
