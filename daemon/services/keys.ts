import type { ApiKeyInfo, Dialect, KeyScope } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { saveAdminKey } from '../keys/admin-key.js';
import { hashPresented, hashSecret, newSecret, sameHash } from '../keys/secrets.js';
import type { StoredKey, StoredSession, StoredUser } from '../store/schema.js';
import { sessionCredential } from './sessions.js';

export const ADMIN_LABEL = 'admin';

/**
 * Who makes a request (docs/accounts.md, "Who calls"): found from a key (the admin key, a
 * machine key or a personal key) or the `nimbus_session` cookie, once per request, by
 * `authorize` (daemon/http/authorize.ts).
 */
export interface Caller {
  /** What authenticated the request: the machine's admin key, a machine key, a personal key or a session. */
  kind: CallerKind;
  /** The user the caller acts as; null for the admin key and machine keys. */
  username: string | null;
  /** An admin: the admin key, a machine key, or a user whose role is `admin` (by session or personal key). */
  admin: boolean;
  /** May change things: false for `read` keys (403 `insufficient_scope` on every changing row). */
  canWrite: boolean;
  /** What authenticated the request, as Revocations names it: the key's hash, or `session:<id>`. */
  credential: string;
  /** The response shapes this caller gets (daemon/http/dialect.ts); sessions get `nimbus`. */
  dialect: Dialect;
  /** The key's label, or "session" for a session. */
  label: string;
  /** The session's id when the caller is a session (its own session in `auth.sessions`), else null. */
  sessionId: string | null;
}

export type CallerKind = 'adminKey' | 'machineKey' | 'personalKey' | 'session';

/** Whether a stored user counts as an admin: their role is `admin` (DaneeCloud's rule). */
export const isAdminUser = (user: StoredUser | undefined): boolean => user?.role === 'admin';

/**
 * A caller acting as a stored user, with the user's standing now (a role change applies at
 * once); null when the user is gone.
 */
function actingAs(
  nimbus: NimbusContext,
  username: string,
  kind: CallerKind,
  rest: Omit<Caller, 'kind' | 'username' | 'admin'>,
): Caller | null {
  const user = nimbus.store.users.get(username);
  if (!user) return null;
  return { kind, username: user.username, admin: isAdminUser(user), ...rest };
}

/** The caller a session of `session.username` is; null when the user is gone. */
export function sessionCaller(nimbus: NimbusContext, session: StoredSession): Caller | null {
  return actingAs(nimbus, session.username, 'session', {
    canWrite: true,
    credential: sessionCredential(session.id),
    dialect: 'nimbus',
    label: 'session',
    sessionId: session.id,
  });
}

/** Who a presented key belongs to, or null. Only hashes are compared, in constant time. */
export function identify(nimbus: NimbusContext, presented: string): Caller | null {
  const hash = hashPresented(presented);
  if (sameHash(hash, nimbus.admin.hash))
    return {
      kind: 'adminKey',
      username: null,
      admin: true,
      canWrite: true,
      credential: nimbus.admin.hash,
      dialect: nimbus.config.adminDialect,
      label: ADMIN_LABEL,
      sessionId: null,
    };
  const key = nimbus.store.keysByHash.get(hash);
  if (!key) return null;
  const dialect = key.dialect ?? 'nimbus';
  if (!key.username) {
    // A machine key: an admin, reading only with scope `read`.
    return {
      kind: 'machineKey',
      username: null,
      admin: true,
      canWrite: key.scope === 'admin',
      credential: key.hash,
      dialect,
      label: key.label,
      sessionId: null,
    };
  }
  // A personal key acts as its user.
  return actingAs(nimbus, key.username, 'personalKey', {
    canWrite: key.scope === 'write',
    credential: key.hash,
    dialect,
    label: key.label,
    sessionId: null,
  });
}

const ownerOf = (key: StoredKey): string | null => key.username ?? null;

const toKeyInfo = (k: StoredKey): ApiKeyInfo => ({
  label: k.label,
  scope: k.scope,
  createdAt: k.createdAt,
  builtIn: false,
  dialect: k.dialect ?? 'nimbus',
  username: ownerOf(k),
});

/**
 * The keys `caller` may see: an admin sees every key (the admin key, machine keys, every
 * user's personal keys); anyone else their own personal keys.
 */
export function listKeys(nimbus: NimbusContext, caller: Caller): ApiKeyInfo[] {
  const stored = [...nimbus.store.keysByHash.values()];
  if (!caller.admin) return stored.filter((k) => ownerOf(k) === caller.username).map(toKeyInfo);
  const admin: ApiKeyInfo = {
    label: ADMIN_LABEL,
    scope: 'admin',
    createdAt: new Date(nimbus.startedAt).toISOString(),
    builtIn: true,
    dialect: nimbus.config.adminDialect,
    username: null,
  };
  return [admin, ...stored.map(toKeyInfo)];
}

/** The key labelled `label` among the keys of `owner` (a username, or null for machine keys). */
function findKey(nimbus: NimbusContext, owner: string | null, label: string): StoredKey | undefined {
  for (const k of nimbus.store.keysByHash.values()) if (k.label === label && ownerOf(k) === owner) return k;
  return undefined;
}

/**
 * Creates a key; the only time it is ever shown is in this return value. A caller acting as
 * a user makes a personal key acting as that user (scope `write` or `read`); the admin key and
 * machine keys make machine keys (scope `admin` or `read`). Labels are unique per owner: among
 * the machine keys, and among each user's personal keys ("admin" is the admin key's).
 */
export async function createKey(
  nimbus: NimbusContext,
  caller: Caller,
  label: string,
  scope: KeyScope,
  dialect: Dialect = 'nimbus',
): Promise<ApiKeyInfo & { key: string }> {
  const owner = caller.username;
  if (owner !== null && scope === 'admin')
    throw badRequest('A personal key’s scope is "write" or "read" (it acts as you; the admin key makes admin keys)');
  if (owner === null && scope === 'write')
    throw badRequest('A machine key’s scope is "admin" or "read" ("write" is for a user’s personal key)');
  if (label === ADMIN_LABEL || findKey(nimbus, owner, label)) {
    throw conflict('key_exists', 'A key with that label already exists');
  }
  const key = newSecret();
  const stored: StoredKey = { label, scope, hash: hashSecret(key), createdAt: new Date().toISOString(), dialect };
  if (owner !== null) stored.username = owner;
  nimbus.store.keysByHash.set(stored.hash, stored);
  await nimbus.store.commit();
  return { ...toKeyInfo(stored), key };
}

/**
 * Deletes the key `label` of `username` (whose personal key; left out: the caller's own
 * keys, which for the admin key and machine keys are the machine keys). A non-admin reaches
 * only their own: another user's key is 404, as a key that does not exist.
 */
export async function deleteKey(nimbus: NimbusContext, caller: Caller, label: string, username?: string): Promise<void> {
  const owner = username ?? caller.username;
  if (owner === null && label === ADMIN_LABEL) throw conflict('key_builtin', 'The admin key cannot be deleted; rotate it instead');
  const entry = caller.admin || owner === caller.username ? findKey(nimbus, owner, label) : undefined;
  if (!entry) throw notFound('key_not_found', 'Key not found');
  nimbus.store.keysByHash.delete(entry.hash);
  // The key is refused from here on; what it opened before (streams, connections) closes now.
  nimbus.revocations.revoke(entry.hash);
  await nimbus.store.commit();
}

/** Deletes every personal key of a user (the user is being deleted); the caller commits. */
export function dropKeysOf(nimbus: NimbusContext, username: string): void {
  for (const key of [...nimbus.store.keysByHash.values()]) {
    if (ownerOf(key) !== username) continue;
    nimbus.store.keysByHash.delete(key.hash);
    nimbus.revocations.revoke(key.hash);
  }
}

/** A renamed user's personal keys follow the new name; the caller commits. */
export function moveKeysOf(nimbus: NimbusContext, from: string, to: string): void {
  for (const key of [...nimbus.store.keysByHash.values()])
    if (ownerOf(key) === from) nimbus.store.keysByHash.set(key.hash, { ...key, username: to });
}

/**
 * Replaces the admin key where it is kept; the old key stops working at once, and its
 * streams and connections close (the caller's own connection once this answer is sent).
 */
export async function rotateAdminKey(nimbus: NimbusContext): Promise<string> {
  if (nimbus.admin.source === 'env') throw conflict('conflict', 'The admin key is set by NIMBUS_API_KEY; change it there and restart');
  const key = newSecret();
  nimbus.admin.source = await saveAdminKey(nimbus.config, nimbus.admin.source, key, nimbus.log);
  const old = nimbus.admin.hash;
  nimbus.admin.key = key;
  nimbus.admin.hash = hashSecret(key);
  nimbus.revocations.revoke(old);
  return key;
}
