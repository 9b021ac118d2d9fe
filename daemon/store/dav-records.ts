/**
 * What WebDAV keeps beside the files (docs/webdav.md, "Locks and properties"): its locks and
 * its dead properties, each a store collection so that they survive a restart and every daemon
 * of a cluster sees them. Paths are user-relative, `/`-separated, '' for the user's root.
 */
import type { TrackedMap } from './tracked-map.js';
import { UserGroups } from './user-groups.js';

/** A WebDAV write lock (RFC 4918 §6); kept until it expires, is unlocked, or its resource goes. */
export interface StoredDavLock {
  /** 'urn:uuid:<uuid v4>': the lock token, the record's key. */
  token: string;
  username: string;
  /** The locked resource, relative to the user's root. */
  path: string;
  depth: '0' | 'infinity';
  scope: 'exclusive' | 'shared';
  /** The inner XML of the LOCK request's <D:owner>, verbatim ('' when absent). */
  owner: string;
  /** As granted (1 s … 3,600 s). */
  timeoutSeconds: number;
  /** Milliseconds since the epoch; an expired lock is never honoured nor listed. */
  expiresAt: number;
  /** Same as path (RFC 4918's lockroot, for the lockdiscovery answer). */
  lockRoot: string;
}

/** One dead property: its namespace, its local name, and the whole element as PROPPATCH sent it. */
export interface StoredDeadProp {
  ns: string;
  name: string;
  xml: string;
}

/** The dead properties of one resource, in the order they were first set. */
export interface StoredDavProps {
  /** sha256 of `<username>/<path>`, hex: one record per resource, of a fixed length whatever the path's. */
  id: string;
  username: string;
  path: string;
  props: StoredDeadProp[];
}

/**
 * The two collections' Maps with their records grouped by user (user-groups.ts): the services
 * change them through these methods, and the Store keeps the groups in step with what it
 * loads and what other daemons write.
 */
export class DavRecords {
  readonly locksByUser = new UserGroups<StoredDavLock>((lock) => lock.token);
  readonly propsByUser = new UserGroups<StoredDavProps>((props) => props.path);
  readonly locks: TrackedMap<StoredDavLock>;
  readonly props: TrackedMap<StoredDavProps>;

  constructor(locks: TrackedMap<StoredDavLock>, props: TrackedMap<StoredDavProps>) {
    this.locks = locks;
    this.props = props;
  }

  putLock(lock: StoredDavLock): void {
    put(this.locks, this.locksByUser, lock.token, lock);
  }

  deleteLock(lock: StoredDavLock): void {
    remove(this.locks, this.locksByUser, lock.token);
  }

  putProps(record: StoredDavProps): void {
    put(this.props, this.propsByUser, record.id, record);
  }

  deleteProps(record: StoredDavProps): void {
    remove(this.props, this.propsByUser, record.id);
  }

  /** After the Maps were loaded anew (a start, a resync, a failed write put back). */
  rebuild(): void {
    this.locksByUser.rebuild(this.locks.values());
    this.propsByUser.rebuild(this.props.values());
  }

  /** After another daemon's record (`after` undefined: deleted) replaced `before` in one of the Maps. */
  applied(collection: 'davLocks' | 'davProps', before: unknown, after: unknown): void {
    if (collection === 'davLocks') this.locksByUser.replace(before as StoredDavLock | undefined, after as StoredDavLock | undefined);
    else this.propsByUser.replace(before as StoredDavProps | undefined, after as StoredDavProps | undefined);
  }
}

function put<R extends { username: string }>(map: TrackedMap<R>, groups: UserGroups<R>, key: string, record: R): void {
  const previous = map.get(key);
  if (previous) groups.remove(previous);
  map.set(key, record);
  groups.add(record);
}

function remove<R extends { username: string }>(map: TrackedMap<R>, groups: UserGroups<R>, key: string): void {
  const stored = map.get(key);
  if (!stored) return;
  map.delete(key);
  groups.remove(stored);
}
