/**
 * PROPFIND (RFC 4918 §9.1): Depth 0 or 1 (infinity refused, 403 propfind-finite-depth), allprop
 * (also for no body), propname, or named properties; unknown ones answered 404 in their own
 * propstat. One listing of a folder is one walk of its index node plus one lstat per file (for
 * the getetag a download would send), written as one string.
 */
import type { Element } from '@xmldom/xmldom';
import type { Context } from 'koa';
import type { NimbusContext } from '../../context.js';
import { badRequest, notFound } from '../../errors.js';
import type { FileIdentity } from '../../storage/file-storage.js';
import { toUser } from '../../services/records.js';
import { davCondition } from './errors.js';
import { asFolder, encodeSegment, hrefOf, joinPath, resourceAt, splitPath, type DavPath } from './paths.js';
import type { PropSource } from './props.js';
import { answer, askedOf, type Wanted } from './answer.js';
import { fileEntries } from './listing.js';
import { deadProps, locksCovering } from './state.js';
import { childElements, isDav, multistatus, readXml, sendXml } from './xml.js';

/** The depth of a PROPFIND: 0 or 1; absent is 1 (as sabre/dav does with infinity off); infinity 403. */
function propfindDepth(ctx: Context): 0 | 1 {
  const depth = ctx.get('Depth').trim().toLowerCase();
  if (depth === '0') return 0;
  if (depth === '1' || depth === '') return 1;
  if (depth === 'infinity')
    throw davCondition(403, 'propfind-finite-depth', 'PROPFIND with Depth: infinity is not served; ask level by level (Depth: 1)');
  throw badRequest('Depth must be 0, 1 or infinity');
}

async function readWanted(ctx: Context): Promise<Wanted> {
  const root = await readXml(ctx);
  if (root === null) return { kind: 'allprop', include: [] };
  if (!isDav(root, 'propfind')) throw badRequest('A PROPFIND body is a DAV:propfind element');
  const children = childElements(root);
  const named = (el: Element) => childElements(el).map((p) => ({ ns: p.namespaceURI ?? '', name: p.localName ?? p.nodeName }));
  const prop = children.find((c) => isDav(c, 'prop'));
  if (prop) return { kind: 'prop', props: named(prop) };
  if (children.some((c) => isDav(c, 'propname'))) return { kind: 'propname' };
  if (children.some((c) => isDav(c, 'allprop'))) {
    const include = children.find((c) => isDav(c, 'include'));
    return { kind: 'allprop', include: include ? named(include) : [] };
  }
  throw badRequest('A DAV:propfind holds DAV:prop, DAV:propname or DAV:allprop');
}

/** Answers a PROPFIND of `/dav/` itself: the users' roots the caller may see. */
export async function propfindUsers(ctx: Context, nimbus: NimbusContext, visible: string[]): Promise<void> {
  const depth = propfindDepth(ctx);
  const wanted = await readWanted(ctx);
  const asked = askedOf(wanted);
  const quota = { usedBytes: 0, maxBytes: -1 };
  const responses = [
    answer(hrefOf(null, '', true), { name: 'dav', collection: true, modifiedMs: Date.now(), quota, locks: [] }, [], wanted, asked),
  ];
  if (depth === 1)
    for (const username of visible) {
      const src = userRootSource(nimbus, username);
      responses.push(answer(hrefOf(username, '', true), src, deadProps(nimbus, username, ''), wanted, asked));
    }
  sendXml(ctx, 207, multistatus(responses));
}

/** Answers a PROPFIND of a resource in a user's tree (404 when there is none). */
export async function propfind(ctx: Context, nimbus: NimbusContext, at: DavPath): Promise<void> {
  const depth = propfindDepth(ctx);
  const wanted = await readWanted(ctx);
  const asked = askedOf(wanted);
  const resource = resourceAt(nimbus, at);
  const { username } = at;
  const user = nimbus.store.users.get(username)!;
  const usage = toUser(nimbus, user).usage;
  const quota = { usedBytes: usage.usedBytes, maxBytes: usage.maxBytes };
  const locksOf = (path: string) => locksCovering(nimbus, username, path);
  if (resource.kind === 'none') throw davNotFound();
  if (resource.kind === 'file') {
    const { parent, name } = splitPath(at.path);
    const identity = await identityOf(nimbus, username, parent, name);
    const src: PropSource = {
      name,
      collection: false,
      meta: resource.meta,
      identity,
      modifiedMs: resource.meta.mtimeMs,
      quota,
      locks: locksOf(at.path),
    };
    sendXml(ctx, 207, multistatus([answer(hrefOf(username, at.path, false), src, deadProps(nimbus, username, at.path), wanted, asked)]));
    return;
  }
  const responses: (string | Buffer)[] = [
    answer(
      hrefOf(username, at.path, true),
      folderSource(nimbus, at, quota, locksOf(at.path)),
      deadProps(nimbus, username, at.path),
      wanted,
      asked,
    ),
  ];
  if (depth === 1) {
    const folder = asFolder(at.path);
    // The folder's own href once; each child's is it and one encoded name.
    const base = hrefOf(username, at.path, true);
    const node = folder === null ? nimbus.index.user(username) : nimbus.index.folder(username, folder);
    for (const [name, sub] of node?.folders ?? []) {
      const path = joinPath(folder, name);
      const src: PropSource = { name, collection: true, modifiedMs: sub.treeModifiedMs, quota, locks: locksOf(path) };
      responses.push(answer(`${base}${encodeSegment(name)}/`, src, deadProps(nimbus, username, path), wanted, asked));
    }
    await fileEntries(nimbus, username, folder, base, quota, wanted, asked, responses);
  }
  sendXml(ctx, 207, multistatus(responses));
}

/** Nothing at the URL: the index has no file or folder there. */
export const davNotFound = () => notFound('not_found', 'Nothing at this URL');

/** A file's identity as its download would name it (opened and closed again: no lstat of its siblings). */
async function identityOf(nimbus: NimbusContext, username: string, folder: string | null, name: string): Promise<FileIdentity | null> {
  const opened = await nimbus.storage.openFile(username, folder, name).catch(() => null);
  if (!opened) return null;
  await opened.close();
  return opened;
}

function folderSource(nimbus: NimbusContext, at: DavPath, quota: PropSource['quota'], locks: PropSource['locks']): PropSource {
  if (at.path === '') return { ...userRootSource(nimbus, at.username), locks };
  const node = nimbus.index.folder(at.username, at.path);
  return { name: splitPath(at.path).name, collection: true, modifiedMs: node?.treeModifiedMs ?? Date.now(), quota, locks };
}

function userRootSource(nimbus: NimbusContext, username: string): PropSource {
  const user = nimbus.store.users.get(username)!;
  const { usage } = toUser(nimbus, user);
  const node = nimbus.index.user(username);
  let latest = Date.parse(user.createdAt);
  for (const sub of node?.folders.values() ?? []) latest = Math.max(latest, sub.treeModifiedMs);
  return {
    name: username,
    collection: true,
    modifiedMs: latest,
    quota: { usedBytes: usage.usedBytes, maxBytes: usage.maxBytes },
    locks: [],
  };
}
