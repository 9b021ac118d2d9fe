/**
 * The servers of bench/scenarios/small-cluster.ts, on one PostgreSQL and one S3 (Swift) engine:
 * a cluster daemon (its `uploader` user, of an unlimited role, made through the API) and the bare
 * node:http server making the same promises (bench/baselines/bare-cluster-files.ts: its own
 * tables and its own bucket). One client (small-servers.ts's apiServer) drives both.
 */
import path from 'node:path';
import { startChild } from './child.js';
import { CLUSTER_BUCKET } from './cluster-dataset.js';
import type { Bench } from './context.js';
import { UNLIMITED_ROLE, UPLOAD_USER } from './dataset.js';
import { expectStatus } from './dav-servers.js';
import type { BenchEngines } from './engines.js';
import { ROOT, api, type NimbusProcess } from './nimbus.js';
import { apiServer, type ApiClient, type ServerName } from './small-servers.js';

export interface ClusterSmallServer extends ApiClient {
  /** Removes the folder `dir` with its files and their objects (so the bucket does not fill over the rounds). */
  clean(dir: string): Promise<void>;
}

/** No listing of `big`'s folder here: the rounds list the folder they just filled (listFolder). */
const NO_BIG_FOLDER = '';

/** The daemon's `uploader`, with no quota to stop the rounds (as in the embedded dataset). */
async function makeUploader(daemon: NimbusProcess): Promise<void> {
  await api(daemon, 'POST', '/api/role/create', { name: UNLIMITED_ROLE, maxStorage: '-1', badge: 'https://example.org/badge.png' });
  await api(daemon, 'POST', '/api/user/create', {
    username: UPLOAD_USER,
    email: `${UPLOAD_USER}@example.org`,
    password: 'bench-small-cluster-Pw-7q',
  });
  await api(daemon, 'POST', '/api/user/role', { username: UPLOAD_USER, name: UNLIMITED_ROLE });
}

/** Nimbus (the cluster `daemon`, already started on `engines`) and the bare server, started now; stop() stops only the latter. */
export async function startClusterSmallServers(
  b: Bench,
  engines: BenchEngines,
  daemon: NimbusProcess,
): Promise<{ servers: ClusterSmallServer[]; stop: () => Promise<void> }> {
  await makeUploader(daemon);
  const nimbus: ClusterSmallServer = {
    ...apiServer('Nimbus', daemon.pid, daemon.url, daemon.key, NO_BIG_FOLDER),
    async clean(folder) {
      await api(daemon, 'POST', '/api/folders/delete', { username: UPLOAD_USER, folder }, 200);
      await api(daemon, 'POST', '/api/trash/empty', { username: UPLOAD_USER }, 200);
    },
  };
  const { child, match } = await startChild(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench', 'baselines', 'bare-cluster-files.ts')],
    /listening (\d+)/,
    {
      cwd: ROOT,
      env: {
        ...process.env,
        BARE_API_KEY: daemon.key,
        BARE_DATABASE_URL: engines.databaseUrl,
        BARE_S3_ENDPOINT: engines.s3.endpoint,
        BARE_S3_REGION: engines.s3.region,
        BARE_S3_BUCKET: `${CLUSTER_BUCKET}-bare`,
        BARE_S3_ACCESS_KEY_ID: engines.s3.accessKeyId,
        BARE_S3_SECRET_ACCESS_KEY: engines.s3.secretAccessKey,
      },
    },
  );
  const name: ServerName = 'bare';
  const bare = apiServer(name, child.pid, `http://127.0.0.1:${match[1]}`, daemon.key, NO_BIG_FOLDER);
  const bareServer: ClusterSmallServer = {
    ...bare,
    async clean(folder) {
      const res = await fetch(`http://127.0.0.1:${match[1]}/api/folders/delete?${new URLSearchParams({ username: UPLOAD_USER, folder })}`, {
        method: 'POST',
        headers: { 'API-Key': daemon.key },
      });
      await expectStatus(res, [200], 'bare folder delete');
    },
  };
  return { servers: [nimbus, bareServer], stop: () => child.stop() };
}
