/**
 * Directory fsyncs shared by the writers that wait on the same directory at once (a group
 * commit, as the store's flush does for db.json). A directory's fsync makes durable every
 * entry changed in it before the fsync began, so a writer that arrives while one is running
 * waits for the next, which begins as soon as the running one ends and serves everyone who
 * joined meanwhile. Sixteen renames in one folder cost a few fsyncs instead of sixteen thread-pool
 * trips and journal commits (issue 30); no answer comes before an fsync that began after its change.
 *
 * Keyed by the directory's device and inode, not its path: a directory renamed or replaced
 * under its name is another key, so a writer never leans on an fsync of a different directory.
 */
import { fstatSync, fsync } from 'node:fs';
import { promisify } from 'node:util';

const fsyncOf = promisify(fsync);

interface Group {
  running: Promise<void>;
  /** The fsync that begins when `running` ends, for those who arrived during it. */
  next: Promise<void> | null;
}

const groups = new Map<string, Group>();

/** A directory's key here: its device and inode, which an open descriptor keeps for its whole life. */
export function directoryIdentity(fd: number): string {
  const { dev, ino } = fstatSync(fd);
  return `${dev}:${ino}`;
}

/**
 * Resolves once an fsync of the open directory `fd` that began after this call has succeeded.
 * `key` is `directoryIdentity(fd)` when the caller has it already (a held directory keeps
 * it: an `fstat` less a write).
 */
export function fsyncDirectoryShared(fd: number, key: string = directoryIdentity(fd)): Promise<void> {
  const group = groups.get(key);
  if (group === undefined) return begin(key, fd);
  // The caller keeps `fd` open until this settles (it awaits it), so it can serve the whole batch.
  if (group.next === null) {
    const after = () => begin(key, fd);
    group.next = group.running.then(after, after);
  }
  return group.next;
}

function begin(key: string, fd: number): Promise<void> {
  const group: Group = { running: fsyncOf(fd), next: null };
  groups.set(key, group);
  const forget = () => {
    if (groups.get(key) === group && group.next === null) groups.delete(key);
  };
  group.running.then(forget, forget);
  return group.running;
}
