/**
 * vitest globalSetup (node project): starts the shared PostgreSQL and Swift once per run,
 * in the background — setup returns at once, so a run whose tests never ask for an engine
 * does not wait for one — and publishes them for the workers (shared.ts). Teardown aborts
 * a start still under way and stops both.
 */
import { createHome, stopHomeSync } from './home.js';
import { startPostgresServer, type PostgresServer } from './postgres.js';
import { ENGINES_VARIABLE, publish } from './shared.js';
import { startSwiftServer, type SwiftServer } from './swift.js';

export default async function setup(): Promise<() => Promise<void>> {
  const home = await createHome();
  // Set before any worker is forked: workers inherit this process's environment.
  process.env[ENGINES_VARIABLE] = home;
  const abort = new AbortController();
  const postgres = startPostgresServer(home, abort.signal).then(
    async (server) => {
      await publish(home, 'postgres', { ok: { url: server.url } });
      return server;
    },
    async (err: Error) => {
      await publish(home, 'postgres', { error: err.message });
      return null;
    },
  );
  const s3 = startSwiftServer(home, abort.signal).then(
    async (server) => {
      const { endpoint, region, accessKeyId, secretAccessKey } = server;
      await publish(home, 's3', { ok: { endpoint, region, accessKeyId, secretAccessKey } });
      return server;
    },
    async (err: Error) => {
      await publish(home, 's3', { error: err.message });
      return null;
    },
  );
  return async () => {
    abort.abort(new Error('the test run ended'));
    const servers: (PostgresServer | SwiftServer | null)[] = await Promise.all([postgres, s3]);
    await Promise.all(servers.map((server) => server?.close()));
    stopHomeSync(home);
  };
}
