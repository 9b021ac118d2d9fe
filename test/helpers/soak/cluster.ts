/**
 * The soak test's cluster (test/daemon/cluster-soak.test.ts): daemons as child processes on
 * fixed ports (so that one restarted comes back where deploy/nginx.conf's upstream names it),
 * a private PostgreSQL (stopped and restarted on purpose), the shared Swift reached through a
 * TCP proxy the test cuts (never Swift itself), and nginx running deploy/nginx.conf in front.
 * Every exit of a daemon is recorded; those the test caused (kill) are flagged as expected, so
 * that any other exit shows up in `unexpectedExits`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { childEnv, LISTENING, runCli, type CliRun } from '../child.js';
import { TEST_KEY } from '../daemon.js';
import { clusterEnv, startPostgres, type PrivatePostgres } from '../engines.js';
import { freePort, startNginx, type RunningNginx } from '../nginx.js';
import { startTcpProxy, type TcpProxy } from '../tcp-proxy.js';

export interface SoakDaemon {
  /** 0, 1, 2: its place in nginx's upstream list. */
  index: number;
  port: number;
  url: string;
  dataDir: string;
  run: CliRun;
  /** Set just before the test kills it: its exit is expected. */
  killing: boolean;
}

export interface SoakCluster {
  daemons: SoakDaemon[];
  nginx: RunningNginx;
  postgres: PrivatePostgres;
  /** The daemons' only way to the bucket. */
  bucketProxy: TcpProxy;
  /** The variables every daemon runs with (the bucket's, through the proxy). */
  env: NodeJS.ProcessEnv;
  /** The S3 variables of the bucket itself (not through the proxy): to look at it from the test. */
  directS3: Record<string, string>;
  /** Exits the test did not cause (a crash), with the end of the daemon's stderr. */
  unexpectedExits: string[];
  /** SIGKILLs the daemon and waits for its exit (expected). */
  kill(d: SoakDaemon): Promise<void>;
  /** Starts the daemon again on its port and data directory. */
  restart(d: SoakDaemon): Promise<void>;
  close(): Promise<void>;
}

async function spawnOn(d: Omit<SoakDaemon, 'run' | 'url' | 'killing'>, env: NodeJS.ProcessEnv): Promise<CliRun> {
  const run = runCli(['daemon', '--port', String(d.port), '--data-dir', d.dataDir], env);
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (!LISTENING.test(run.stdout())) return;
      run.child.stdout!.off('data', onData);
      resolve();
    };
    run.child.stdout!.on('data', onData);
    void run.exited.then(async (code) => {
      const log = await readFile(path.join(d.dataDir, 'logs', 'nimbus.log'), 'utf8').catch(() => '');
      reject(new Error(`daemon ${d.index} exited (${code}) before listening: ${run.stderr()}\n${log.slice(-3000)}`));
    });
  });
  return run;
}

export async function startSoakCluster(count: number): Promise<SoakCluster> {
  // Durable commits: the immediate stop must not take back writes the daemons acknowledged.
  const postgres = await startPostgres({ durableCommits: true });
  const directS3 = await clusterEnv({ s3: true });
  const endpoint = new URL(directS3.NIMBUS_S3_ENDPOINT);
  const bucketProxy = await startTcpProxy({ host: endpoint.hostname, port: Number(endpoint.port) });
  endpoint.port = String(bucketProxy.port);
  const nginxPort = await freePort();
  const env = childEnv({
    ...directS3,
    NIMBUS_S3_ENDPOINT: endpoint.origin,
    NIMBUS_DATABASE_URL: await postgres.createDatabase(),
    NIMBUS_API_KEY: TEST_KEY,
    NIMBUS_KEYCHAIN: 'off',
    NIMBUS_PUBLIC_URL: `http://127.0.0.1:${nginxPort}`,
  });
  const unexpectedExits: string[] = [];
  const watch = (d: SoakDaemon) => {
    void d.run.exited.then((code) => {
      if (!d.killing) unexpectedExits.push(`daemon ${d.index} exited (${code}): ${d.run.stderr().slice(-500)}`);
    });
  };
  const daemons: SoakDaemon[] = [];
  for (let index = 0; index < count; index++) {
    const port = await freePort();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), `nimbus-soak-${index}-`));
    daemons.push({ index, port, dataDir, url: `http://127.0.0.1:${port}`, killing: false, run: undefined as unknown as CliRun });
  }
  // One at a time: the first creates the schema, and three tsx start-ups at once on two cores
  // take longer than one after another.
  for (const d of daemons) {
    d.run = await spawnOn(d, env);
    watch(d);
  }
  const nginx = await startNginx({ upstreams: daemons.map((d) => `127.0.0.1:${d.port}`), port: nginxPort });
  return {
    daemons,
    nginx,
    postgres,
    bucketProxy,
    env,
    directS3,
    unexpectedExits,
    async kill(d) {
      d.killing = true;
      d.run.child.kill('SIGKILL');
      await d.run.exited;
    },
    async restart(d) {
      d.run = await spawnOn(d, env);
      d.killing = false;
      watch(d);
    },
    async close() {
      await nginx.stop();
      for (const d of daemons) {
        d.killing = true;
        if (d.run.child.exitCode === null && d.run.child.signalCode === null) {
          d.run.child.kill('SIGCONT');
          d.run.child.kill('SIGKILL');
          await d.run.exited;
        }
      }
      await bucketProxy.close();
      await postgres.close();
      for (const d of daemons) await rm(d.dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether each daemon, asked directly, answers /api/health `ok` (database and bucket reached). */
export async function allHealthy(cluster: SoakCluster): Promise<boolean> {
  const states = await Promise.all(
    cluster.daemons.map(async (d) => {
      try {
        const res = await fetch(`${d.url}/api/health`);
        return res.status === 200 && ((await res.json()) as { status: string }).status === 'ok';
      } catch {
        return false;
      }
    }),
  );
  return states.every(Boolean);
}
