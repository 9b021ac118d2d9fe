import { defineConfig } from 'vitest/config';

// Two projects: the daemon, main process and end-to-end tests run in Node against real
// servers; renderer component tests run in jsdom. The node project's globalSetup starts the
// shared PostgreSQL and Swift (S3) in the background for the tests that ask for them
// (test/helpers/engines.ts).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: [
            'test/daemon/**/*.test.ts',
            'test/main/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'test/adversarial/**/*.test.ts',
            'test/accounts/**/*.test.ts',
            'test/shared/**/*.test.ts',
            'test/types/**/*.test.ts',
          ],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          globalSetup: ['test/helpers/engines/global-setup.ts'],
        },
      },
      {
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['test/renderer/**/*.test.{ts,tsx}'],
        },
      },
    ],
  },
});
