/**
 * Whether what a caller was authorized for earlier still holds (issue 22, item 5): an open
 * event stream (daemon/http/events.ts) and an in-flight download, zip or upload
 * (daemon/http/connections.ts) outlive the moment their request was authorized.
 */
import { createHash } from 'node:crypto';
import type { NimbusContext } from '../context.js';
import type { StoredUser } from '../store/schema.js';
import { isAdminUser, type Caller } from './keys.js';

/**
 * Whether a caller authorized earlier (an open event stream's) still stands as then: the same
 * user, an admin or not as then. False once a role change made them an admin or no longer one,
 * once they were renamed or deleted, or once the personal key names another user. A key or
 * session that ends is revoked (Revocations); this covers what changes under a live one.
 */
export function standsAsAuthorized(nimbus: NimbusContext, caller: Caller): boolean {
  if (caller.username === null) return true;
  const user = stillTheUser(nimbus, caller);
  return user !== undefined && isAdminUser(user) === caller.admin;
}

/**
 * Whether a request authorized earlier (a download, a zip, an upload still streaming) may
 * still have what it names of `named`'s: while the caller stands as then, anything; once only
 * their role changed, still what is their own (a demoted admin keeps their own download).
 */
export function mayStillHave(nimbus: NimbusContext, caller: Caller, named: string | null): boolean {
  if (standsAsAuthorized(nimbus, caller)) return true;
  return named !== null && named === caller.username && stillTheUser(nimbus, caller) !== undefined;
}

/**
 * The credential of a caller signed in by username and password on each request (WebDAV's
 * Basic): names the user and their password as it is now, so that a new password makes it
 * another (what such a caller opened closes, as a session's does when it ends).
 */
export function passwordCredential(user: StoredUser): string {
  let digest = credentialDigests.get(user.passwordHash);
  if (digest === undefined) {
    if (credentialDigests.size >= CREDENTIAL_DIGESTS_MAX) credentialDigests.clear();
    digest = createHash('sha256').update(user.passwordHash).digest('base64url');
    credentialDigests.set(user.passwordHash, digest);
  }
  return `${PASSWORD_CREDENTIAL}${user.username}:${digest}`;
}

/**
 * The digest of each stored password hash asked for lately: every WebDAV request signed in with
 * a password names its credential, and a hash a request was ~0.6 µs and more under load.
 * Keyed by the stored hash itself, so a new password is a new entry; emptied when full.
 */
const credentialDigests = new Map<string, string>();
const CREDENTIAL_DIGESTS_MAX = 1024;

const PASSWORD_CREDENTIAL = 'password:';

/** The caller's user as stored now, if the caller still acts as that user under that name. */
function stillTheUser(nimbus: NimbusContext, caller: Caller): StoredUser | undefined {
  if (caller.username === null) return undefined;
  if (caller.credential.startsWith(PASSWORD_CREDENTIAL)) {
    const user = nimbus.store.users.get(caller.username);
    return user && passwordCredential(user) === caller.credential ? user : undefined;
  }
  // A personal key follows its user through a rename (by its hash); a session's user is fixed, a rename ends it.
  if (caller.sessionId === null && nimbus.store.keysByHash.get(caller.credential)?.username !== caller.username) return undefined;
  return nimbus.store.users.get(caller.username);
}
