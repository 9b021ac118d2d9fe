/**
 * A real mount of a WebDAV collection through the kernel's FUSE, with davfs2 (`mount -t davfs`,
 * Debian `davfs2`; docs/webdav.md, "Clients proven here", says why davfs2 and not `rclone mount`).
 * Needs root and /dev/fuse. Each mount has a temp directory of its own (mount point, davfs2's
 * config, its secrets file and its cache) whose name carries the test process's pid, so a mount
 * left behind by a process that died (SIGKILL: no hook ran) is found and removed by the next
 * mountDav; every mount still live when the process exits is lazily unmounted then.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runClient } from './dav-clients.js';

export const MOUNT_DAVFS = '/usr/sbin/mount.davfs';
const PREFIX = 'nimbus-davmount-';

export interface DavMount {
  /** The mount point: the remote collection's files, as files. */
  dir: string;
  /** Unmounts (davfs2 uploads what it still holds first, then exits) and removes the temp directory. */
  unmount(): Promise<void>;
}

const live = new Set<DavMount>();

/** A davfs2 secrets-file field: quoted, with `"` and `\` escaped (davfs2.conf(5)). */
const secretField = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * Mounts the collection at `url` with Basic credentials. davfs2 settings, and why:
 * `use_locks 1` (its default: it LOCKs a file while it is open for writing, as Windows and macOS
 * do), `delay_upload 0` (a closed file goes up at once rather than after 10 s), `buf_size 64`
 * (with the default 16 KiB, every readdir fails with EINVAL on Linux ≥ 6.16: davfs2's issue 22),
 * `ask_auth 0` (never prompt).
 */
export async function mountDav(url: string, user: string, pass: string): Promise<DavMount> {
  removeOrphanMounts();
  const base = await mkdtemp(path.join(os.tmpdir(), `${PREFIX}${process.pid}-`));
  const dir = path.join(base, 'mnt');
  await mkdir(dir);
  // mount.davfs started by root gives up root for the user `davfs2` (davfs2.conf's dav_user),
  // which must reach its cache: the temp directory is made passable and the cache is set up as
  // Debian sets up /var/cache/davfs2 (root, group davfs2, 0775).
  await chmod(base, 0o711);
  const cache = path.join(base, 'cache');
  await mkdir(cache);
  const davGroup = groupId('davfs2');
  if (davGroup !== null) {
    await chown(cache, 0, davGroup);
    await chmod(cache, 0o775);
  }
  const secrets = path.join(base, 'secrets');
  await writeFile(secrets, `${secretField(dir)} ${secretField(user)} ${secretField(pass)}\n`, { mode: 0o600 });
  const conf = path.join(base, 'davfs2.conf');
  await writeFile(
    conf,
    [`secrets ${secrets}`, `cache_dir ${cache}`, 'use_locks 1', 'delay_upload 0', 'buf_size 64', 'ask_auth 0', ''].join('\n'),
  );
  const mount: DavMount = {
    dir,
    async unmount() {
      if (!live.delete(mount)) return;
      try {
        if (isMounted(dir)) await runClient('umount', [dir], { timeoutMs: 120_000 });
      } finally {
        // A mount that would not go quietly is detached, so no test run leaves one behind.
        if (isMounted(dir)) spawnSync('umount', ['-l', dir]);
        await rm(base, { recursive: true, force: true });
      }
    },
  };
  try {
    await runClient(MOUNT_DAVFS, [url, dir, '-o', `conf=${conf}`], { timeoutMs: 60_000 });
    if (!isMounted(dir)) throw new Error(`mount.davfs ${url} ${dir} exited 0 but nothing is mounted there`);
  } catch (err) {
    if (isMounted(dir)) spawnSync('umount', ['-l', dir]);
    await rm(base, { recursive: true, force: true });
    throw err;
  }
  live.add(mount);
  return mount;
}

/** Unmounts every mount this process made and still holds (for afterEach/afterAll: a timed-out test never reached its finally). */
export async function unmountAll(): Promise<void> {
  for (const mount of [...live]) await mount.unmount();
}

/** The mount points of /proc/mounts (octal escapes such as \040 decoded). */
function mountPoints(): string[] {
  if (!existsSync('/proc/mounts')) return [];
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .map((field) => field.replace(/\\([0-7]{3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8))));
}

/** The gid of a system group, from /etc/group (null when there is none). */
function groupId(name: string): number | null {
  const line = readFileSync('/etc/group', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  return line ? Number(line.split(':')[2]) : null;
}

const isMounted = (dir: string) => mountPoints().includes(dir);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Lazily unmounts the mounts of this helper whose process is gone (only those: the pid is in the name). */
function removeOrphanMounts(): void {
  const pattern = new RegExp(`^${os.tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/${PREFIX}(\\d+)-[^/]+/mnt$`);
  for (const point of mountPoints()) {
    const match = pattern.exec(point);
    if (match && Number(match[1]) !== process.pid && !alive(Number(match[1]))) spawnSync('umount', ['-l', point]);
  }
}

process.once('exit', () => {
  for (const mount of live) spawnSync('umount', ['-l', mount.dir]);
});
