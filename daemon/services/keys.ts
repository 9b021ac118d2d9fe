import type { ApiKeyInfo, Dialect, KeyScope } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { saveAdminKey } from '../keys/admin-key.js';
import { hashSecret, newSecret, sameHash } from '../keys/secrets.js';

export const ADMIN_LABEL = 'admin';

export interface Caller {
  label: string;
  scope: KeyScope;
  /** What authenticated the request (the key's hash), as Revocations names it. */
  credential: string;
  /** The response shapes this caller gets (daemon/http/dialect.ts). */
  dialect: Dialect;
}

/**
 * Hashes of recently presented keys: a client sends the same key on every request, and
 * hashing it each time was ~8 % of a GET. Bounded, and emptied when full, so a flood of
 * wrong keys costs no more memory than this.
 */
const recentHashes = new Map<string, string>();
const RECENT_HASHES_MAX = 256;

function hashPresented(presented: string): string {
  let hash = recentHashes.get(presented);
  if (hash === undefined) {
    if (recentHashes.size >= RECENT_HASHES_MAX) recentHashes.clear();
    hash = hashSecret(presented);
    recentHashes.set(presented, hash);
  }
  return hash;
}

/** Who a presented key belongs to, or null. Only hashes are compared, in constant time. */
export function identify(nimbus: NimbusContext, presented: string): Caller | null {
  const hash = hashPresented(presented);
  if (sameHash(hash, nimbus.admin.hash))
    return { label: ADMIN_LABEL, scope: 'admin', credential: nimbus.admin.hash, dialect: nimbus.config.adminDialect };
  const key = nimbus.store.keysByHash.get(hash);
  return key ? { label: key.label, scope: key.scope, credential: key.hash, dialect: key.dialect ?? 'nimbus' } : null;
}

export function listKeys(nimbus: NimbusContext): ApiKeyInfo[] {
  const admin: ApiKeyInfo = {
    label: ADMIN_LABEL,
    scope: 'admin',
    createdAt: new Date(nimbus.startedAt).toISOString(),
    builtIn: true,
    dialect: nimbus.config.adminDialect,
    username: null,
  };
  return [
    admin,
    ...[...nimbus.store.keysByHash.values()].map((k) => ({
      label: k.label,
      scope: k.scope,
      createdAt: k.createdAt,
      builtIn: false,
      dialect: k.dialect ?? 'nimbus',
      username: null,
    })),
  ];
}

/** Creates a key; the only time it is ever shown is in this return value. */
export async function createKey(
  nimbus: NimbusContext,
  label: string,
  scope: KeyScope,
  dialect: Dialect = 'nimbus',
): Promise<ApiKeyInfo & { key: string }> {
  if (label === ADMIN_LABEL || [...nimbus.store.keysByHash.values()].some((k) => k.label === label)) {
    throw conflict('key_exists', 'A key with that label already exists');
  }
  const key = newSecret();
  const createdAt = new Date().toISOString();
  nimbus.store.keysByHash.set(hashSecret(key), { label, scope, hash: hashSecret(key), createdAt, dialect });
  await nimbus.store.commit();
  return { label, scope, createdAt, builtIn: false, dialect, username: null, key };
}

export async function deleteKey(nimbus: NimbusContext, label: string): Promise<void> {
  if (label === ADMIN_LABEL) throw conflict('key_builtin', 'The admin key cannot be deleted; rotate it instead');
  const entry = [...nimbus.store.keysByHash.values()].find((k) => k.label === label);
  if (!entry) throw notFound('key_not_found', 'Key not found');
  nimbus.store.keysByHash.delete(entry.hash);
  // The key is refused from here on; what it opened before (streams, connections) closes now.
  nimbus.revocations.revoke(entry.hash);
  await nimbus.store.commit();
}

/**
 * Replaces the admin key where it is kept; the old key stops working at once, and its
 * streams and connections close (the caller's own connection once this answer is sent).
 */
export async function rotateAdminKey(nimbus: NimbusContext): Promise<string> {
  if (nimbus.admin.source === 'env') throw conflict('conflict', 'The admin key is set by NIMBUS_API_KEY; change it there and restart');
  const key = newSecret();
  await saveAdminKey(nimbus.config, nimbus.admin.source, key);
  const old = nimbus.admin.hash;
  nimbus.admin.key = key;
  nimbus.admin.hash = hashSecret(key);
  nimbus.revocations.revoke(old);
  return key;
}
