/**
 * The test suite's own waits (test/helpers/patient-waits.ts, vitest.config.ts): vi.waitFor and
 * expect.poll wait past vitest's 1 s default before they fail, and a test's own timeout still wins.
 */
import { describe, expect, it, vi } from 'vitest';

const trueAfter = (ms: number) => {
  const due = Date.now() + ms;
  return () => Date.now() >= due;
};

describe('waits in the tests', () => {
  it('vi.waitFor waits past 1 s by default', async () => {
    const done = trueAfter(1_500);
    await vi.waitFor(() => expect(done()).toBe(true));
  });

  it('expect.poll waits past 1 s by default', async () => {
    const done = trueAfter(1_500);
    await expect.poll(done).toBe(true);
  });

  it('a wait given its own timeout keeps it', async () => {
    // True after 5 s: within the 10 s default the wait would pass; with its own 300 ms it fails.
    const done = trueAfter(5_000);
    await expect(vi.waitFor(() => expect(done()).toBe(true), { timeout: 300 })).rejects.toThrow();
  });
});
