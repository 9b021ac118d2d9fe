/**
 * The If header (RFC 4918 §10.4) evaluated against the resources it names: each list holds when
 * all its conditions do (a state token names a live lock covering the resource, an entity tag
 * is the resource's current one, `Not` inverts), the header when any list does. False is 412
 * (RFC 4918 §10.4.1), whatever locks there are; a write it lets through meets the services' own
 * lock checks, a 423 when none of its tokens is the lock's. Every
 * state token it names is submitted (withLockTokens), as §10.4.1 has it, true or not.
 */
import type { Context } from 'koa';
import type { NimbusContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { validatorsOf } from '../conditional.js';
import { davCondition, DavCondition } from './errors.js';
import { hrefOf, parseDavPath, resourceAt, splitPath, type DavPath } from './paths.js';
import { locksCovering, locksWithin, parseIf, type DavLock, type IfCondition } from './state.js';
import { escapeXml } from './xml.js';

/** The lock tokens a request submits, after its If header (if any) held; 412 when it did not. */
export async function submittedTokens(ctx: Context, nimbus: NimbusContext, at: DavPath): Promise<Set<string>> {
  const header = ctx.get('If');
  if (!header) return new Set();
  const lists = parseIf(header);
  const tokens = new Set<string>();
  for (const list of lists) for (const c of list.conditions) if (!c.not && c.token) tokens.add(c.token);
  const etags = new Map<string, string | null>();
  for (const list of lists) {
    const resource = list.resource === null ? at : taggedResource(list.resource, at.username);
    if (resource && (await allHold(nimbus, resource, list.conditions, etags))) return tokens;
  }
  throw davCondition(412, 'precondition-failed', 'The If header does not hold');
}

/** A tagged list's resource, when it is in the same user's tree on this server; null names nothing here (the list is false). */
function taggedResource(url: string, username: string): DavPath | null {
  try {
    const target = parseDavPath(new URL(url, 'http://localhost').pathname);
    return target.username === username ? { username, path: target.path } : null;
  } catch {
    return null;
  }
}

async function allHold(nimbus: NimbusContext, at: DavPath, conditions: IfCondition[], etags: Map<string, string | null>): Promise<boolean> {
  for (const c of conditions) {
    let holds: boolean;
    if (c.token !== undefined) holds = locksCovering(nimbus, at.username, at.path).some((lock) => lock.token === c.token);
    else {
      if (!etags.has(at.path)) etags.set(at.path, await currentEtag(nimbus, at));
      holds = c.etag !== undefined && etags.get(at.path) === c.etag;
    }
    if (holds === c.not) return false;
  }
  return true;
}

/** The ETag a download of the file would send now; null for a folder or nothing. */
async function currentEtag(nimbus: NimbusContext, at: DavPath): Promise<string | null> {
  if (resourceAt(nimbus, at).kind !== 'file') return null;
  const { parent, name } = splitPath(at.path);
  const opened = await nimbus.storage.openFile(at.username, parent, name).catch(() => null);
  if (!opened) return null;
  await opened.close();
  return validatorsOf(opened).etag;
}

/** A live lock on or above `paths` (or below them) whose token was not submitted: the one a 423 names. */
export function blockingLock(
  nimbus: NimbusContext,
  username: string,
  paths: readonly string[],
  tokens: ReadonlySet<string>,
): DavLock | undefined {
  for (const path of paths) {
    const lock = [...locksCovering(nimbus, username, path), ...locksWithin(nimbus, username, path)].find((l) => !tokens.has(l.token));
    if (lock) return lock;
  }
  return undefined;
}

/** 423 with the lock-token-submitted precondition naming the lock's root (RFC 4918 §16). */
export function lockTokenMissing(nimbus: NimbusContext, lock: DavLock): DavCondition {
  const href = hrefOf(lock.username, lock.lockRoot, resourceAt(nimbus, { username: lock.username, path: lock.lockRoot }).kind === 'folder');
  return new DavCondition(
    423,
    `<D:lock-token-submitted><D:href>${escapeXml(href)}</D:href></D:lock-token-submitted>`,
    `'${lock.lockRoot || '/'}' is locked; submit its lock token in an If header`,
  );
}

/** A service's 423 (a write a lock forbids) as WebDAV's answer naming the lock; anything else unchanged. */
export function asLockCondition(
  err: unknown,
  nimbus: NimbusContext,
  username: string,
  paths: readonly string[],
  tokens: ReadonlySet<string>,
): unknown {
  if (!(err instanceof ApiError) || err.status !== 423 || err instanceof DavCondition) return err;
  const lock = blockingLock(nimbus, username, paths, tokens);
  return lock ? lockTokenMissing(nimbus, lock) : err;
}
