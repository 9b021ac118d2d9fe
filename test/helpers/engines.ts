/**
 * Real database and object-store servers for tests (issue 14, docs/cluster.md): a shared
 * PostgreSQL and a shared Swift (S3) per vitest run, started by the node project's
 * globalSetup (test/helpers/engines/global-setup.ts), a fresh database or bucket per test
 * daemon, and private PostgreSQL servers for tests that stop the database on purpose.
 * Outside a vitest run with that setup (a script, another config), the first call starts
 * the shared engines in this process and the process's exit stops them.
 */
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../daemon/storage/objects/s3-client.js';
import { createHome, stopHomeSync } from './engines/home.js';
import { createDatabase, startPostgresServer, type PostgresOptions } from './engines/postgres.js';
import { ENGINES_VARIABLE, waitForPublished, type PublishedPostgres, type PublishedS3 } from './engines/shared.js';
import { startSwiftServer } from './engines/swift.js';

export interface PostgresEngine {
  /** The server's `postgres` database (superuser, no password). */
  url: string;
  /** Creates an empty database; returns its URL. */
  createDatabase(): Promise<string>;
}

export interface PrivatePostgres extends PostgresEngine {
  /** pg_ctl stop -m fast (or -m immediate): the server is down, its data kept. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts again on the same port and data. */
  restart(): Promise<void>;
  /** Stops and removes everything. */
  close(): Promise<void>;
}

export interface S3Engine {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Creates a fresh bucket; returns its name. */
  createBucket(): Promise<string>;
}

let sharedPostgresPromise: Promise<PostgresEngine> | undefined;
let sharedS3Promise: Promise<S3Engine> | undefined;

/** The run's shared PostgreSQL server (waits until it is ready). */
export function sharedPostgres(): Promise<PostgresEngine> {
  sharedPostgresPromise ??= (async () => {
    const home = process.env[ENGINES_VARIABLE];
    const { url } = home ? await waitForPublished<PublishedPostgres>(home, 'postgres') : await startPostgresServer(await localHome());
    return postgresEngine(url);
  })();
  return sharedPostgresPromise;
}

/** A PostgreSQL server of the caller's own, to stop and restart (database outages). */
export async function startPostgres(options: PostgresOptions = {}): Promise<PrivatePostgres> {
  // A home of its own, so close() leaves nothing behind (a worker's 'exit' handlers do not always run).
  const home = await createHome();
  const stopAtExit = () => stopHomeSync(home);
  process.once('exit', stopAtExit);
  const server = await startPostgresServer(home, undefined, options).catch((err: Error) => {
    stopAtExit();
    throw err;
  });
  return {
    ...postgresEngine(server.url),
    stop: (mode) => server.stop(mode),
    restart: () => server.restart(),
    async close() {
      await server.close();
      process.off('exit', stopAtExit);
      stopHomeSync(home);
    },
  };
}

/** The run's shared Swift (S3) server (waits until it is ready). */
export function sharedS3(): Promise<S3Engine> {
  sharedS3Promise ??= (async () => {
    const home = process.env[ENGINES_VARIABLE];
    const settings = home ? await waitForPublished<PublishedS3>(home, 's3') : await startSwiftServer(await localHome());
    return s3Engine(settings);
  })();
  return sharedS3Promise;
}

/** Variables for a daemon in a cluster mode: a fresh database and/or a fresh bucket on the shared engines. */
export async function clusterEnv(
  opts: { database?: boolean; s3?: boolean } = { database: true, s3: true },
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  if (opts.database) env.NIMBUS_DATABASE_URL = await (await sharedPostgres()).createDatabase();
  if (opts.s3) {
    const s3 = await sharedS3();
    Object.assign(env, {
      NIMBUS_S3_ENDPOINT: s3.endpoint,
      NIMBUS_S3_BUCKET: await s3.createBucket(),
      NIMBUS_S3_REGION: s3.region,
      NIMBUS_S3_ACCESS_KEY_ID: s3.accessKeyId,
      NIMBUS_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    });
  }
  return env;
}

function postgresEngine(url: string): PostgresEngine {
  return { url, createDatabase: () => createDatabase(url) };
}

function s3Engine(settings: PublishedS3): S3Engine {
  const { endpoint, region, accessKeyId, secretAccessKey } = settings;
  let client: S3Client | undefined;
  return {
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    async createBucket() {
      client ??= createS3Client({ endpoint, region, accessKeyId, secretAccessKey, forcePathStyle: true });
      const bucket = `nimbus-${randomBytes(8).toString('hex')}`;
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return bucket;
    },
  };
}

/** This process's own engine home, removed (servers stopped) when the process exits. */
let localHomePromise: Promise<string> | undefined;
function localHome(): Promise<string> {
  localHomePromise ??= createHome().then((home) => {
    process.once('exit', () => stopHomeSync(home));
    return home;
  });
  return localHomePromise;
}
