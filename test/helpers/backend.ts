/**
 * Which backend this run's test daemons use (NIMBUS_TEST_BACKEND: test/helpers/daemon.ts), and
 * `onDisk` for tests that are about the embedded daemon's disk by nature (symlinks, files another
 * program drops in the storage folder, the watcher, the disk layout). Those are not registered
 * at all on another backend: CI counts a skipped test as a failure, and there is nothing to skip.
 */
export type TestBackend = 'embedded' | 'postgres' | 'object' | 'cluster';

const BACKENDS: readonly TestBackend[] = ['embedded', 'postgres', 'object', 'cluster'];

export function testBackendFromEnvironment(): TestBackend {
  const value = process.env.NIMBUS_TEST_BACKEND ?? 'embedded';
  if ((BACKENDS as readonly string[]).includes(value)) return value as TestBackend;
  throw new Error(`NIMBUS_TEST_BACKEND=${value}: expected embedded, postgres, object or cluster`);
}

/**
 * True when this run's daemons are embedded: db.json and the storage folder, watched. (A
 * postgres-mode daemon keeps bytes on disk too, but these tests were written for embedded.)
 */
export const embeddedRun = testBackendFromEnvironment() === 'embedded';

/** Registers tests (it/describe calls) only when the run's daemons are embedded (on disk). */
export function onDisk(register: () => void): void {
  if (embeddedRun) register();
}
