/**
 * Failpoints: named places where a test can make the daemon fail as the disk would (EIO,
 * ENOSPC), since no real disk here fails on demand, or die there as a crash would (`CRASH`:
 * SIGKILL to itself, for a child daemon only). Unarmed, a failpoint is one Map lookup.
 * Armed from tests in-process, or for a child process with NIMBUS_FAILPOINTS="name=CODE,…".
 */
const armed = new Map<string, string>();

for (const pair of (process.env.NIMBUS_FAILPOINTS ?? '').split(',').filter(Boolean)) {
  const [name, code] = pair.split('=');
  if (name && code) armed.set(name, code);
}

export type FailpointName =
  | 'store.write'
  | 'store.fsync'
  | 'store.rename'
  /** user.delete: the user's directory is a tombstone, the record not yet removed (storage/tombstones.ts). */
  | 'user.delete.entombed'
  /** user.delete: the record's removal is committed, the tombstone not yet removed. */
  | 'user.delete.committed'
  /** folders.copy: the copy written under its hidden name (storage/folder-copy.ts), not yet renamed into place. */
  | 'folder.copy.filled'
  /** folders.copy in object mode: every object of the copy made, its rows not committed yet (object-copy.ts). */
  | 'folder.copy.objects'
  /** A resumable upload's file placed, its record not yet marked done (services/tus-writer.ts). */
  | 'tus.placed';

export function armFailpoint(name: FailpointName, code: string): void {
  armed.set(name, code);
}

export function disarmFailpoint(name: FailpointName): void {
  armed.delete(name);
}

/** Throws an errno-style error if the failpoint is armed (or, armed with CRASH, kills the process at once). */
export function failpoint(name: FailpointName): void {
  const code = armed.get(name);
  if (code === 'CRASH') process.kill(process.pid, 'SIGKILL');
  if (code) throw Object.assign(new Error(`${code}: injected failure at ${name}`), { code });
}
