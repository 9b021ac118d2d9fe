/**
 * A throwaway single-node OpenStack Swift with its S3 layer (s3api + tempauth), ported from
 * the shell recipe: rings of one device, the object/container/account servers, memcached
 * (tempauth keeps tokens there) and the proxy, every file in one directory of an engine
 * home, the servers dropping to the `swift` OS user. Each server runs in its own process
 * group whose id is written to run/<name>.pgid, so a reaper can stop it and its workers.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { freePort } from './free-port.js';
import { killGroup } from './home.js';
import { logTail, run, sleep } from './run.js';

export interface SwiftServer {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  dir: string;
  close(): Promise<void>;
}

const BACKENDS = ['object', 'container', 'account'] as const;

export async function startSwiftServer(home: string, signal?: AbortSignal): Promise<SwiftServer> {
  const dir = await mkdtemp(path.join(home, 'swift-'));
  const etc = path.join(dir, 'etc');
  const runDir = path.join(dir, 'run');
  await Promise.all([mkdir(etc), mkdir(runDir), mkdir(path.join(dir, 'node', 'd1'), { recursive: true })]);
  const proxyPort = await freePort();
  const memcachePort = await freePort();
  const ports = { object: await freePort(), container: await freePort(), account: await freePort() };
  const groups: number[] = [];
  const close = async () => {
    for (const pgid of groups) killGroup(pgid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await writeConfig(dir, proxyPort, memcachePort, ports);
    await Promise.all(BACKENDS.map((svc) => buildRing(etc, svc, ports[svc], signal)));
    await run('chown', ['-R', 'swift:', dir], { signal });
    const launch = async (name: string, command: string, args: string[]) => {
      const log = await open(path.join(runDir, `${name}.log`), 'w');
      const child = spawn(command, args, { detached: true, stdio: ['ignore', log.fd, log.fd] });
      await log.close();
      child.unref();
      if (child.pid === undefined) throw new Error(`${command} did not start`);
      groups.push(child.pid);
      await writeFile(path.join(runDir, `${name}.pgid`), String(child.pid));
    };
    await launch('memcached', 'memcached', ['-u', 'nobody', '-l', '127.0.0.1', '-p', String(memcachePort), '-m', '64']);
    for (const svc of [...BACKENDS, 'proxy']) await launch(svc, `swift-${svc}-server`, [path.join(etc, `${svc}-server.conf`), '-v']);
    await waitUntilReady(proxyPort, [memcachePort, ...Object.values(ports)], signal);
  } catch (err) {
    const logs = await Promise.all(
      ['proxy', ...BACKENDS].map(async (svc) => `--- ${svc}:\n${await logTail(path.join(runDir, `${svc}.log`), 15)}`),
    );
    await close();
    if (signal?.aborted) throw err;
    const hint =
      (err as NodeJS.ErrnoException).code === 'ENOENT'
        ? ' (not installed? apt-get install swift swift-proxy swift-account swift-container swift-object memcached)'
        : '';
    throw new Error(`Swift did not start${hint}: ${(err as Error).message}\n${logs.join('\n')}`);
  }
  return {
    endpoint: `http://127.0.0.1:${proxyPort}`,
    region: 'us-east-1',
    accessKeyId: 'test:tester',
    secretAccessKey: 'testing',
    dir,
    close,
  };
}

/** Ready = the proxy answers /healthcheck and every backend (and memcached) accepts connections. */
async function waitUntilReady(proxyPort: number, backendPorts: number[], signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const healthy = await fetch(`http://127.0.0.1:${proxyPort}/healthcheck`, { signal })
      .then((res) => res.ok)
      .catch(() => false);
    if (healthy && (await Promise.all(backendPorts.map(accepts))).every(Boolean)) return;
    if (Date.now() > deadline) throw new Error('not ready after 60 s');
    await sleep(100, signal);
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function buildRing(etc: string, svc: string, port: number, signal?: AbortSignal): Promise<void> {
  const builder = path.join(etc, `${svc}.builder`);
  await run('swift-ring-builder', [builder, 'create', '8', '1', '1'], { signal });
  await run('swift-ring-builder', [builder, 'add', `r1z1-127.0.0.1:${port}/d1`, '100'], { signal });
  // rebalance exits 1 with a warning for a one-device ring even though it wrote the ring.
  await run('swift-ring-builder', [builder, 'rebalance'], { signal }).catch((err: Error) => {
    if (!/Reassigned|Balance/i.test(err.message)) throw err;
  });
}

async function writeConfig(dir: string, proxyPort: number, memcachePort: number, ports: Record<(typeof BACKENDS)[number], number>) {
  const etc = path.join(dir, 'etc');
  await writeFile(
    path.join(etc, 'swift.conf'),
    `[swift-hash]\nswift_hash_path_suffix = ${randomBytes(8).toString('hex')}\nswift_hash_path_prefix = test\n` +
      '[storage-policy:0]\nname = Policy-0\ndefault = yes\n',
  );
  // Logs go to stderr (-v) and from there to run/<svc>.log; the syslog address is made unusable on purpose.
  const common = (port: number) =>
    `[DEFAULT]\nswift_dir = ${etc}\ndevices = ${path.join(dir, 'node')}\nmount_check = false\nbind_ip = 127.0.0.1\n` +
    `bind_port = ${port}\nworkers = 1\nuser = swift\nlog_name = %s\nlog_address = /dev/null-nonexistent\nlog_level = WARNING\n`;
  const daemons = {
    object: ['object-replicator', 'object-auditor', 'object-updater'],
    container: ['container-replicator', 'container-updater', 'container-sync', 'container-auditor'],
    account: ['account-replicator', 'account-auditor', 'account-reaper'],
  };
  for (const svc of BACKENDS) {
    const sections = daemons[svc].map((d) => `[${d}]\n`).join('');
    await writeFile(
      path.join(etc, `${svc}-server.conf`),
      `${common(ports[svc]).replace('%s', svc)}\n[pipeline:main]\npipeline = ${svc}-server\n\n[app:${svc}-server]\nuse = egg:swift#${svc}\n\n${sections}`,
    );
  }
  const filters = ['catch_errors', 'gatekeeper', 'healthcheck', 'proxy_logging', 'listing_formats', 'bulk', 'copy', 'slo', 'dlo'];
  await writeFile(
    path.join(etc, 'proxy-server.conf'),
    `[DEFAULT]\nswift_dir = ${etc}\nbind_ip = 127.0.0.1\nbind_port = ${proxyPort}\nworkers = 1\nuser = swift\n` +
      'log_name = proxy\nlog_address = /dev/null-nonexistent\nlog_level = WARNING\n\n' +
      '[pipeline:main]\npipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk s3api tempauth copy slo dlo proxy-logging proxy-server\n\n' +
      '[app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\nallow_account_management = true\n\n' +
      // Multipart uploads land in <bucket>+segments containers (SLO).
      '[filter:s3api]\nuse = egg:swift#s3api\nlocation = us-east-1\n\n' +
      '[filter:tempauth]\nuse = egg:swift#tempauth\nuser_test_tester = testing .admin\nreseller_prefix = AUTH\n\n' +
      `[filter:cache]\nuse = egg:swift#memcache\nmemcache_servers = 127.0.0.1:${memcachePort}\n\n` +
      filters.map((f) => `[filter:${f.replace('_logging', '-logging')}]\nuse = egg:swift#${f}\n`).join(''),
  );
}
