/**
 * The WebDAV state the API honours too (locks, dead properties, the If header's parser):
 * dav-state's modules (daemon/services/dav-locks.ts, dav-props.ts, lock-tokens.ts,
 * daemon/http/dav/if-header.ts). Until they land, this module stands in for them with their
 * agreed signatures: no lock is ever held, no property kept.
 */
import type { NimbusContext } from '../../context.js';
import { ApiError, badRequest } from '../../errors.js';

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
export interface LockRequest {
  username: string;
  path: string;
  depth: '0' | 'infinity';
  scope: 'exclusive' | 'shared';
  owner: string;
  timeoutSeconds: number;
}
export interface DeadProp {
  ns: string;
  name: string;
  xml: string;
}
export interface IfCondition {
  not: boolean;
  token?: string;
  etag?: string;
}
export type IfList = { resource: string | null; conditions: IfCondition[] }[];

const pending = () => new ApiError('forbidden', 'Locks and properties are not kept yet');

export const locksCovering = (_n: NimbusContext, _u: string, _p: string): DavLock[] => [];
export const locksWithin = (_n: NimbusContext, _u: string, _p: string): DavLock[] => [];
export const createLock = (_n: NimbusContext, _r: LockRequest): Promise<DavLock> => Promise.reject(pending());
export const refreshLock = (_n: NimbusContext, _u: string, _p: string, _t: string, _s: number): Promise<DavLock> =>
  Promise.reject(pending());
export const removeLock = (_n: NimbusContext, _u: string, _p: string, _t: string): Promise<void> => Promise.reject(pending());
export const deadProps = (_n: NimbusContext, _u: string, _p: string): DeadProp[] => [];
export const patchDeadProps = (
  _n: NimbusContext,
  _u: string,
  _p: string,
  _s: readonly DeadProp[],
  _r: readonly { ns: string; name: string }[],
): Promise<void> => Promise.reject(pending());
export const copyDeadProps = (_n: NimbusContext, _u: string, _f: string, _t: string): Promise<void> => Promise.resolve();
export const withLockTokens = <T>(_tokens: ReadonlySet<string>, fn: () => Promise<T>): Promise<T> => fn();
/** A stand-in parser: untagged lists of state tokens and entity tags only. */
export function parseIf(header: string): IfList {
  const lists: IfList = [];
  for (const match of header.matchAll(/(?:<([^>]*)>\s*)?\(([^)]*)\)/g)) {
    const conditions = [...match[2].matchAll(/(Not\s+)?(?:<([^>]*)>|\[([^\]]*)\])/gi)].map((c) => ({
      not: Boolean(c[1]),
      token: c[2],
      etag: c[3],
    }));
    if (conditions.length === 0) throw badRequest('Malformed If header');
    lists.push({ resource: match[1] ?? null, conditions });
  }
  if (lists.length === 0) throw badRequest('Malformed If header');
  return lists;
}
