/**
 * What this process (an in-process daemon's) has open under a directory, from /proc/self/fd,
 * leaving out the directories the daemon keeps open on purpose across requests
 * (daemon/storage/held-dirs.ts): what remains is a descriptor left open by mistake.
 */
import { readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { heldDescriptors } from '../../daemon/storage/held-dirs.js';

/** Paths of this process's open descriptors at or under `dir`, the held directories left out. */
export async function openPathsUnder(dir: string): Promise<string[]> {
  const held = heldDescriptors();
  const fds = (await readdir('/proc/self/fd')).filter((fd) => !held.has(Number(fd)));
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return targets.filter((p) => p === dir || p.startsWith(dir + path.sep));
}
