/**
 * podman as this kind of machine runs it (Docker's engine cannot run here, podman can), and the
 * images the container test builds on. What the machine needs, each found by trying:
 * - the runc runtime, not crun (crun refuses the hybrid cgroups);
 * - cgroup_manager cgroupfs (no systemd), no default ulimits (podman would raise RLIMIT_NOFILE
 *   above what a process may here): both in a containers.conf of our own;
 * - network host (no bridge here): a container's ports are the machine's, so each test picks
 *   a free port and hands it in as NIMBUS_PORT.
 * No image registry is reachable, Debian's mirror and npm's registry are: the Debian base is made
 * by debootstrap, and Node 22 (this very binary) and npm are copied onto it, at the paths the
 * official node:22-bookworm-slim image has them, so the Dockerfile builds unchanged on it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { removeTree, ROOT, run, runOk, type Ran } from './ship-tools.js';

export const DEBIAN_BASE = 'localhost/nimbus-ci/debian:bookworm-slim';
export const NODE_BASE = 'localhost/nimbus-ci/node:22-bookworm-slim';
/** The root Dockerfile, built on NODE_BASE. */
export const NIMBUS_IMAGE = 'localhost/nimbus:ci';
/** deploy/compose/swift, built on DEBIAN_BASE. */
export const SWIFT_IMAGE = 'localhost/nimbus-ci/swift-s3:2.30';

const CONF = path.join(os.tmpdir(), 'nimbus-ci-containers.conf');

function podmanEnv(): NodeJS.ProcessEnv {
  return { ...process.env, CONTAINERS_CONF: CONF };
}

/** Runs podman with this machine's settings; build and run get the host network. */
export function podman(args: string[], options: { input?: string } = {}): Promise<Ran> {
  const [sub, ...rest] = args;
  const network = sub === 'build' || sub === 'run' ? ['--network', 'host'] : [];
  return run('podman', ['--runtime', 'runc', sub, ...network, ...rest], { env: podmanEnv(), input: options.input });
}

/** podman that must succeed: throws with its output otherwise. */
export async function podmanOk(args: string[], options: { input?: string } = {}): Promise<Ran> {
  const ran = await podman(args, options);
  if (ran.code !== 0)
    throw new Error(`podman ${args.join(' ')} exited ${ran.code}\n${ran.stdout.slice(-3000)}\n${ran.stderr.slice(-3000)}`);
  return ran;
}

/**
 * Why the container tests cannot run here (null: they can). With NIMBUS_REQUIRE_E2E=1 (CI) a
 * missing podman, runc or debootstrap throws: those tests must fail there, never skip.
 */
export function containerSkipReason(): string | null {
  const missing = ['podman', 'runc', 'debootstrap'].filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  let reason = missing.length ? `not installed: ${missing.join(', ')} (apt-get install -y podman runc debootstrap)` : null;
  if (!reason && process.getuid?.() !== 0) reason = 'the container tests run podman as root (debootstrap and the host network need it)';
  if (reason && process.env.NIMBUS_REQUIRE_E2E === '1')
    throw new Error(`NIMBUS_REQUIRE_E2E=1 but the container tests cannot run: ${reason}`);
  return reason;
}

/** Writes the containers.conf this machine needs (see the top of this file). */
export async function configurePodman(): Promise<void> {
  await writeFile(CONF, '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\n');
}

const imageExists = async (name: string) => (await podman(['image', 'exists', name])).code === 0;

/** Debian 12 (minbase) from Debian's mirror, trusting what this machine trusts; once per machine (~1.5 min). */
export async function ensureDebianBase(): Promise<void> {
  if (await imageExists(DEBIAN_BASE)) return;
  const root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-debroot-'));
  try {
    await runOk('debootstrap', ['--variant=minbase', '--include=ca-certificates', 'bookworm', root, 'http://deb.debian.org/debian']);
    // HTTPS from this machine may pass through a proxy with its own certificate authority: the
    // image trusts what the machine trusts (the system bundle; Node reads it through
    // NODE_EXTRA_CA_CERTS), so npm inside a build reaches the registry.
    const extra = '/usr/local/share/ca-certificates';
    if (existsSync(extra)) {
      for (const file of readdirSync(extra).filter((name) => name.endsWith('.crt'))) {
        await runOk('cp', [path.join(extra, file), path.join(root, 'usr/local/share/ca-certificates', file)]);
      }
    }
    await runOk('chroot', [root, 'update-ca-certificates']);
    await runOk(
      'sh',
      [
        '-c',
        `tar -C "$1" -c . | podman --runtime runc import --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - "$2"`,
        'sh',
        root,
        DEBIAN_BASE,
      ],
      { env: podmanEnv() },
    );
  } finally {
    await removeTree(root);
  }
}

/** The package folder of the `npm` on PATH (its bin/npm-cli.js, through the symlink). */
async function npmPackageDir(): Promise<string> {
  const cli = (await runOk('sh', ['-c', 'readlink -f "$(command -v npm)"'])).stdout.trim();
  const dir = path.dirname(path.dirname(cli));
  if (!existsSync(path.join(dir, 'bin', 'npm-cli.js'))) throw new Error(`npm is not at ${dir} (from ${cli})`);
  return dir;
}

/** Node 22 and npm on the Debian base, where node:22-bookworm-slim has them (/usr/local); ~10 s. */
export async function ensureNodeBase(): Promise<void> {
  await ensureDebianBase();
  if (await imageExists(NODE_BASE)) return;
  const context = await mkdtemp(path.join(os.tmpdir(), 'nimbus-nodebase-'));
  try {
    await writeFile(
      path.join(context, 'Containerfile'),
      [
        'ARG BASE',
        'FROM ${BASE}',
        'RUN cp /host-node/node /usr/local/bin/node && mkdir -p /usr/local/lib/node_modules \\',
        '  && cp -a /host-npm /usr/local/lib/node_modules/npm \\',
        '  && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\',
        '  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\',
        '  && node --version && npm --version',
        '',
      ].join('\n'),
    );
    await podmanOk([
      'build',
      '--build-arg',
      `BASE=${DEBIAN_BASE}`,
      '-v',
      `${path.dirname(process.execPath)}:/host-node:ro`,
      '-v',
      `${await npmPackageDir()}:/host-npm:ro`,
      '-t',
      NODE_BASE,
      context,
    ]);
  } finally {
    await removeTree(context);
  }
}

/** A TCP port nobody listens on now (the container shares the machine's network). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `fn` alone among this machine's test processes (a directory as the lock, as
 * test/helpers/browser.ts does): two test files building one image at once would both do all
 * of the work; the second one in line finds every layer cached.
 */
async function alone<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(os.tmpdir(), `nimbus-ci-${name}.lock`);
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      const age = Date.now() - ((await stat(lock).catch(() => null))?.mtimeMs ?? Date.now());
      if (age > 900_000) await rm(lock, { recursive: true, force: true }); // left by a killed run
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * Builds the root Dockerfile on the local Node base, as CI does: `--format docker` (OCI images
 * have no HEALTHCHECK), and the machine's npm cache lent to the build (a volume, in no layer):
 * the packages CI's own `npm ci` fetched. Returns the seconds it took (all layers cached: a few).
 */
export function buildNimbusImage(): Promise<number> {
  return alone('images', async () => {
    await configurePodman();
    await ensureNodeBase();
    const npmCache = (await runOk('npm', ['config', 'get', 'cache'])).stdout.trim();
    await mkdir(npmCache, { recursive: true });
    const started = Date.now();
    await podmanOk([
      'build',
      '--format',
      'docker',
      '--build-arg',
      `BASE=${NODE_BASE}`,
      '-v',
      `${npmCache}:/root/.npm`,
      '-t',
      NIMBUS_IMAGE,
      ROOT,
    ]);
    return (Date.now() - started) / 1000;
  });
}

/** Builds deploy/compose/swift (Debian 12's Swift with s3api) on the local Debian base. */
export function buildSwiftImage(): Promise<number> {
  return alone('images', async () => {
    await configurePodman();
    await ensureDebianBase();
    const started = Date.now();
    await podmanOk([
      'build',
      '--format',
      'docker',
      '--build-arg',
      `BASE=${DEBIAN_BASE}`,
      '-t',
      SWIFT_IMAGE,
      path.join(ROOT, 'deploy', 'compose', 'swift'),
    ]);
    return (Date.now() - started) / 1000;
  });
}
