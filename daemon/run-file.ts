/**
 * `<dataDir>/daemon.json`: where the daemon that holds this data directory answers. Every
 * way of starting a daemon (`nimbus daemon`, `npm start`, the desktop app) writes it, so
 * `nimbus key rotate` reaches the running daemon and the old key dies at once.
 */
import { lstat, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface RunInfo {
  pid: number;
  url: string;
}

const runFilePath = (dataDir: string): string => path.join(dataDir, 'daemon.json');

/** Records the running daemon (0600: it names a local port, nothing secret, but it is the owner's business). */
export async function writeRunFile(dataDir: string, info: RunInfo): Promise<void> {
  const file = runFilePath(dataDir);
  await writeFile(`${file}.tmp`, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

/** Removes the record, unless another daemon has taken the directory over meanwhile. */
export async function removeRunFile(dataDir: string, pid = process.pid): Promise<void> {
  const info = await readRunFile(dataDir);
  if (info && info.pid !== pid) return;
  await rm(runFilePath(dataDir), { force: true });
}

/**
 * The recorded daemon if its process is alive, else null (a crash leaves a stale file
 * behind). The CLI sends the admin key to this address, so a file that someone else could
 * have written (another owner, writable by others, a symlink) is not believed.
 */
export async function readRunFile(dataDir: string): Promise<RunInfo | null> {
  let info: RunInfo;
  try {
    const stat = await lstat(runFilePath(dataDir));
    if (!stat.isFile() || (stat.mode & 0o022) !== 0) return null;
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return null;
    info = JSON.parse(await readFile(runFilePath(dataDir), 'utf8')) as RunInfo;
  } catch {
    return null;
  }
  if (!Number.isInteger(info.pid) || typeof info.url !== 'string' || !/^http:\/\//.test(info.url)) return null;
  try {
    process.kill(info.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return info;
}
