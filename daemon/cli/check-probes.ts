/**
 * What `nimbus check` looks at, each a line: OK, WARN (works, but fix it) or FAIL (the daemon
 * will not start or will not work). Each probe reads only: nothing is created or changed.
 */
import { constants } from 'node:fs';
import { access, readdir, readFile, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import type { DaemonConfig } from '../config.js';

export type Level = 'OK' | 'WARN' | 'FAIL';
export interface CheckLine {
  level: Level;
  what: string;
  detail: string;
}
const line = (level: Level, what: string, detail: string): CheckLine => ({ level, what, detail });

/** Below this the daemon cannot take an upload of any size; below the larger, warn. */
const DISK_FAIL_BYTES = 100 * 1048576;
const DISK_WARN_BYTES = 1024 * 1048576;
const DISK_WARN_SHARE = 0.05;
/** inotify's limit is per user and shared with every other program of the user: warn well before it. */
const WATCH_WARN_SHARE = 0.5;

/** The directory's owner and mode: the store and the users' files must be the daemon user's alone. */
export async function checkPrivateDir(what: string, dir: string): Promise<CheckLine> {
  let info;
  try {
    info = await stat(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? line('WARN', what, `${dir} does not exist yet (the daemon makes it at its first start)`)
      : line('FAIL', what, `${dir}: ${code}`);
  }
  if (!info.isDirectory()) return line('FAIL', what, `${dir} is not a directory`);
  const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
  if (typeof process.getuid === 'function' && info.uid !== process.getuid())
    return line(
      'FAIL',
      what,
      `${dir} belongs to uid ${info.uid}, not to this user (uid ${process.getuid()}): run as the daemon's user, or chown it`,
    );
  if ((info.mode & 0o022) !== 0) return line('FAIL', what, `${dir} is mode ${mode}: others may write into it; chmod 700 ${dir}`);
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch {
    return line('FAIL', what, `${dir} is not writable by this user (mode ${mode})`);
  }
  if ((info.mode & 0o077) !== 0) return line('WARN', what, `${dir} is mode ${mode}: others may read it; chmod 700 ${dir}`);
  return line('OK', what, `${dir} (mode ${mode}, owned by this user)`);
}

/** A secret file (db.json holds password hashes, admin.key the admin key) readable by others is a FAIL. */
export async function checkSecretFile(what: string, file: string): Promise<CheckLine | null> {
  const info = await stat(file).catch(() => null);
  if (!info) return null;
  const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
  if ((info.mode & 0o077) !== 0) return line('FAIL', what, `${file} is mode ${mode}: others may read it; chmod 600 ${file}`);
  return line('OK', what, `${file} (mode ${mode})`);
}

/** Free space where the files and the store go. */
export async function checkDisk(what: string, dir: string): Promise<CheckLine> {
  let fs;
  try {
    fs = await statfs(await nearestExisting(dir));
  } catch (err) {
    return line('FAIL', what, `${dir}: ${(err as Error).message}`);
  }
  const free = fs.bavail * fs.bsize;
  const total = fs.blocks * fs.bsize;
  const detail = `${gib(free)} free of ${gib(total)} at ${dir}`;
  if (free < DISK_FAIL_BYTES) return line('FAIL', what, `${detail}: uploads and the store's writes will fail`);
  if (free < DISK_WARN_BYTES || free < total * DISK_WARN_SHARE) return line('WARN', what, `${detail}: little room left`);
  return line('OK', what, detail);
}

async function nearestExisting(dir: string): Promise<string> {
  for (let at = dir; ; at = path.dirname(at)) {
    if (
      await stat(at).then(
        () => true,
        () => false,
      )
    )
      return at;
    if (path.dirname(at) === at) return at;
  }
}

const gib = (bytes: number): string => `${(bytes / 1073741824).toFixed(1)} GiB`;

/**
 * The watcher (@parcel/watcher, inotify on Linux) holds one watch per folder of the storage
 * folder; past the user's limit it cannot follow new folders and the daemon falls back to
 * its periodic rescan, so changes made beside the API show up late.
 */
export async function checkInotify(storageDir: string): Promise<CheckLine | null> {
  if (process.platform !== 'linux') return null;
  let limit: number;
  try {
    limit = Number((await readFile('/proc/sys/fs/inotify/max_user_watches', 'utf8')).trim());
  } catch {
    return line('WARN', 'inotify', 'cannot read /proc/sys/fs/inotify/max_user_watches');
  }
  const folders = await countFolders(storageDir);
  const detail = `${folders} folders in the storage folder, limit ${limit} watches (fs.inotify.max_user_watches)`;
  if (folders >= limit)
    return line('FAIL', 'inotify', `${detail}: raise it, e.g. sysctl fs.inotify.max_user_watches=${nextLimit(folders)}`);
  if (folders > limit * WATCH_WARN_SHARE)
    return line('WARN', 'inotify', `${detail}: shared with the user's other programs; raise it to ${nextLimit(folders)}`);
  return line('OK', 'inotify', detail);
}

const nextLimit = (folders: number): number => 2 ** Math.ceil(Math.log2(Math.max(65536, folders * 4)));

async function countFolders(dir: string): Promise<number> {
  let count = 1;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) if (entry.isDirectory()) count += await countFolders(path.join(dir, entry.name));
  return count;
}

/** db.json parses (a damaged one stops the daemon's start). */
export async function checkStore(config: DaemonConfig): Promise<CheckLine> {
  const file = path.join(config.dataDir, 'db.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return line('WARN', 'store', `${file} does not exist yet (made at the first start)`);
    return line('FAIL', 'store', `${file}: ${(err as Error).message}`);
  }
  try {
    JSON.parse(text);
  } catch {
    return line('FAIL', 'store', `${file} does not parse: the daemon will not start (its last good version is db.json.bak)`);
  }
  return line('OK', 'store', `${file} parses (${(text.length / 1024).toFixed(0)} KiB)`);
}

export { line };
