/**
 * LOCK and UNLOCK (RFC 4918 §9.10, §9.11) through dav-state's lock service: exclusive or shared
 * write locks, Depth 0 or infinity, `Timeout: Second-n` or `Infinite` (the service caps it); a
 * LOCK without a body refreshes the lock its If header names; a LOCK of an unmapped URL makes
 * an empty file (201), as RFC 4918 §7.3 has it.
 */
import { XMLSerializer, type Element } from '@xmldom/xmldom';
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import type { NimbusContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import * as files from '../../services/files.js';
import type { Caller } from '../../services/keys.js';
import { davMayStill } from './auth.js';
import { resourceAt, splitPath, type DavPath } from './paths.js';
import { activeLock } from './props.js';
import { createLock, parseIf, refreshLock, removeLock, withLockTokens, type DavLock } from './state.js';
import { parentGoneIs409, requireParent } from './write.js';
import { davChild, isDav, readXml, sendXml } from './xml.js';

/** The seconds a Timeout header asks for: the first it can read of its list; Infinite is endless (the service caps it). */
function askedSeconds(header: string): number {
  for (const part of header.split(',')) {
    const value = part.trim();
    if (/^infinite$/i.test(value)) return Number.POSITIVE_INFINITY;
    const seconds = /^second-(\d+)$/i.exec(value);
    if (seconds) return Number(seconds[1]);
  }
  return Number.POSITIVE_INFINITY;
}

function lockDepth(ctx: Context): '0' | 'infinity' {
  const depth = ctx.get('Depth').trim().toLowerCase() || 'infinity';
  if (depth !== '0' && depth !== 'infinity') throw badRequest('LOCK takes Depth 0 or infinity');
  return depth;
}

const lockAnswer = (lock: DavLock): string =>
  `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLock(lock)}</D:lockdiscovery></D:prop>`;

export async function lock(ctx: Context, nimbus: NimbusContext, at: DavPath, caller: Caller): Promise<void> {
  const depth = lockDepth(ctx);
  const timeoutSeconds = askedSeconds(ctx.get('Timeout'));
  const info = await readXml(ctx);
  if (info === null) {
    // A refresh: the lock named by the If header's token, on this resource or above it.
    const header = ctx.get('If');
    const token = header
      ? parseIf(header)
          .flatMap((list) => list.conditions)
          .find((c) => !c.not && c.token)?.token
      : undefined;
    if (!token) throw badRequest('A LOCK without a body refreshes a lock: name its token in an If header');
    const refreshed = await refreshLock(nimbus, at.username, at.path, token, timeoutSeconds);
    sendXml(ctx, 200, lockAnswer(refreshed));
    return;
  }
  if (!isDav(info, 'lockinfo')) throw badRequest('A LOCK body is a DAV:lockinfo element');
  const scopeElement = davChild(info, 'lockscope');
  const scope =
    scopeElement && davChild(scopeElement, 'shared') ? 'shared' : scopeElement && davChild(scopeElement, 'exclusive') ? 'exclusive' : null;
  if (scope === null) throw badRequest('A lockinfo names its lockscope: exclusive or shared');
  const type = davChild(info, 'locktype');
  if (!type || !davChild(type, 'write')) throw badRequest('Only write locks exist');
  const ownerElement = davChild(info, 'owner');
  const owner = ownerElement ? innerXml(ownerElement) : '';
  const unmapped = resourceAt(nimbus, at).kind === 'none';
  if (unmapped) requireParent(nimbus, at);
  const taken = await createLock(nimbus, { username: at.username, path: at.path, depth, scope, owner, timeoutSeconds });
  if (unmapped) await makeEmptyFile(nimbus, at, caller, taken.token);
  ctx.set('Lock-Token', `<${taken.token}>`);
  sendXml(ctx, unmapped ? 201 : 200, lockAnswer(taken));
}

/** A locked empty file at an unmapped URL, written under the new lock's token. */
async function makeEmptyFile(nimbus: NimbusContext, at: DavPath, caller: Caller, token: string): Promise<void> {
  const { parent, name } = splitPath(at.path);
  await withLockTokens(new Set([token]), () =>
    files.uploadFile(nimbus, {
      username: at.username,
      folder: parent,
      file: name,
      overwrite: false,
      declaredLength: 0,
      body: Readable.from([]),
      callerMayStill: () => davMayStill(nimbus, caller, at.username),
    }),
  ).catch(parentGoneIs409);
}

/** The children of an element serialized, verbatim (a lock's owner). */
function innerXml(el: Element): string {
  const serializer = new XMLSerializer();
  const parts: string[] = [];
  for (let node = el.firstChild; node; node = node.nextSibling) parts.push(serializer.serializeToString(node));
  return parts.join('');
}

export async function unlock(ctx: Context, nimbus: NimbusContext, at: DavPath): Promise<void> {
  const header = /^\s*<([^>]+)>\s*$/.exec(ctx.get('Lock-Token'));
  if (!header) throw badRequest('UNLOCK names its lock in a Lock-Token header: <urn:uuid:…>');
  await removeLock(nimbus, at.username, at.path, header[1]);
  ctx.body = null;
  ctx.status = 204;
}
