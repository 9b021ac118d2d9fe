/**
 * Setup file of every project (vitest.config.ts): `vi.waitFor` waits up to 10 s before it fails
 * unless a test says otherwise, as `expect.poll` does through the config. Vitest's default is
 * 1 s for both, and no config sets vi.waitFor's: with three test files at once on two cores, a
 * daemon's, a watcher's or another daemon's change can take longer than that. A wait that
 * passes ends as soon as it does, so only a failing one takes longer to say so.
 */
import { vi } from 'vitest';

const PATIENT_WAIT_MS = 10_000;

const waitFor = vi.waitFor.bind(vi);
vi.waitFor = ((callback: Parameters<typeof vi.waitFor>[0], options?: Parameters<typeof vi.waitFor>[1]) =>
  waitFor(callback, typeof options === 'number' ? options : { timeout: PATIENT_WAIT_MS, ...options })) as typeof vi.waitFor;
