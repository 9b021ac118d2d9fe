/**
 * The WebDAV state the API honours too (locks, dead properties): dav-state's services
 * (daemon/services/dav-locks.ts, dav-props.ts, lock-tokens.ts). Until they land, this module
 * stands in for them with their agreed signatures: no locks, no dead properties.
 */
import type { NimbusContext } from '../../context.js';

export interface DavLock {
  token: string;
  username: string;
  path: string;
  depth: '0' | 'infinity';
  scope: 'exclusive' | 'shared';
  owner: string;
  timeoutSeconds: number;
  expiresAt: number;
  lockRoot: string;
}

export interface DeadProp {
  ns: string;
  name: string;
  xml: string;
}

export function locksCovering(_nimbus: NimbusContext, _username: string, _path: string): DavLock[] {
  return [];
}

export function deadProps(_nimbus: NimbusContext, _username: string, _path: string): DeadProp[] {
  return [];
}

export function withLockTokens<T>(_tokens: ReadonlySet<string>, fn: () => Promise<T>): Promise<T> {
  return fn();
}
