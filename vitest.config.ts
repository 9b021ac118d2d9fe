import os from 'node:os';
import { defineConfig } from 'vitest/config';

// Three projects: the daemon, main process and end-to-end tests run in Node against real
// servers; renderer component tests run in jsdom. The node project's globalSetup starts the
// shared PostgreSQL and Swift (S3) in the background for the tests that ask for them
// (test/helpers/engines.ts). The cluster project runs the API tests again on PostgreSQL + S3.
/**
 * expect.poll's wait before it fails (vitest's default is 1 s). A poll ends as soon as it passes;
 * under three files at once a watcher's event, a UI's answer or a daemon's start can take longer
 * than a second on two cores (a tree test's poll for a folder removed on disk failed so).
 */
const POLL = { poll: { timeout: 10_000 } };
/** vi.waitFor's wait before it fails, the same 10 s (no config sets it: this file does). */
const SETUP = ['test/helpers/patient-waits.ts'];

/** The node project's settings, and the cluster project's. */
const nodeSettings = {
  expect: POLL,
  setupFiles: SETUP,
  environment: 'node',
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
  globalSetup: ['test/helpers/engines/global-setup.ts'],
} as const;

/**
 * The API tests the cluster project runs again on PostgreSQL + S3 (issue 14: one set of tests,
 * both backends; test/helpers/daemon.ts reads NIMBUS_TEST_BACKEND). Disk-only tests in them are
 * registered on the disk backend only (test/helpers/backend.ts, onDisk).
 * Every file of the trial run is here (none left out).
 */
const clusterFiles = [
  ...[
    'files',
    'transfers',
    'trash',
    'usage',
    'search',
    'zip',
    'previews',
    'thumbnails',
    'thumbnail-conditional',
    'accounts',
    'auth',
    'sessions',
    'user-edit',
    'verification',
    'share-pages',
    'share-options',
    'folder-links',
    'upload-links',
    'versions',
    'conditional-downloads',
    'dialect',
    'daneecloud-client',
    'daneecloud-bot',
    'bad-input',
    'endpoints',
    'badges',
    'role-badges',
    'events',
    'event-replay',
    'verify-events',
    'revocation',
    'name-collisions',
    'reserved-names',
    'params',
    'utf8-params',
    'upload-failures',
    'upload-bodies',
    'body-rate',
    'consistency',
    'throttle',
    'audiences',
    'smoke',
    // Issue 25's tree (the scan, the watcher and polling are the disk's own: not here).
    'tree-addressing',
    'tree-copy',
    'tree-folders',
    'tree-rename',
    'tree-search',
    'tree-trash',
    'tree-zip',
    // Issue 26's WebDAV door.
    'dav-auth',
    'dav-streams',
    'dav-tree',
    'dav-locks-door',
    'dav-litmus',
    // Issue 26: WebDAV's locks and dead properties, kept in the store (PostgreSQL here).
    'dav-locks',
    'dav-locks-api',
    'dav-props',
    // Issue 26: rclone's round trip through /dav/ (the davfs2 mount runs on the disk backend only).
    'dav-clients-rclone',
    // Issue 28: argon2id, and old scrypt hashes replaced at sign-in (the store read is PostgreSQL's here).
    'password-hashing',
    // Issue 28: /metrics, with the PostgreSQL and S3 error counters the embedded run does not have.
    'metrics',
  ].map((name) => `test/daemon/${name}.test.ts`),
  'test/accounts/**/*.test.ts',
];

/**
 * Test files at once, across the three projects: one more than the cores, at most four.
 * Vitest's default (cores − 1) ran CI's 2-core machine one file at a time, though most files
 * wait on disks, engines, daemons and Chromium far more than they compute: with 3 the whole
 * suite took 20 min against 33 (README, "Tests"). Engines are shared (test/helpers/engines.ts);
 * the renderer's build and the container images are built under locks; a data directory,
 * port and browser profile are each test's own.
 */
const FILES_AT_ONCE = Math.min(4, os.availableParallelism() + 1);

export default defineConfig({
  test: {
    maxWorkers: FILES_AT_ONCE,
    projects: [
      {
        test: {
          ...nodeSettings,
          name: 'node',
          include: [
            'test/daemon/**/*.test.ts',
            'test/main/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'test/adversarial/**/*.test.ts',
            'test/accounts/**/*.test.ts',
            'test/shared/**/*.test.ts',
            'test/types/**/*.test.ts',
            // Issue 28: the shipped forms (the npm tarball, the container image), built and run for real.
            'test/ship/**/*.test.ts',
            // Issue 28: the operator commands (nimbus user, role, backup, restore, check), run as the real binary.
            'test/cli/**/*.test.ts',
          ],
        },
      },
      {
        test: { ...nodeSettings, name: 'cluster', include: clusterFiles, env: { NIMBUS_TEST_BACKEND: 'cluster' } },
      },
      {
        test: {
          name: 'renderer',
          expect: POLL,
          setupFiles: SETUP,
          environment: 'jsdom',
          include: ['test/renderer/**/*.test.{ts,tsx}'],
        },
      },
    ],
  },
});
