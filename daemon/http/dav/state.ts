/**
 * The WebDAV state the API honours too, as dav-state keeps it (daemon/services/dav-locks.ts,
 * dav-props.ts, lock-tokens.ts, daemon/http/dav/if-header.ts): one import place for the door.
 */
export {
  createLock,
  locksCovering,
  locksWithin,
  liveLocksOf,
  refreshLock,
  removeLock,
  type DavLock,
  type LockRequest,
} from '../../services/dav-locks.js';
export { anyDeadProps, copyDeadProps, deadProps, patchDeadProps, type DeadProp } from '../../services/dav-props.js';
export { withLockTokens } from '../../services/lock-tokens.js';
export { parseIf, type IfCondition, type IfList } from './if-header.js';
