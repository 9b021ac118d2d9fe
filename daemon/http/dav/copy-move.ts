/**
 * COPY and MOVE (RFC 4918 §9.8, §9.9) through the services' own copy, move and rename, so
 * quota, case twins, share links and events behave as through the API. The Destination must
 * be this server (else 502) and the same user's tree (else 403); Overwrite: F onto something
 * is 412, T (the default) puts what was there into the trash first (204), else 201.
 */
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import type { NimbusContext } from '../../context.js';
import { ApiError, badRequest, conflict, quotaExceeded } from '../../errors.js';
import * as files from '../../services/files.js';
import * as folders from '../../services/folders.js';
import { copyFolder } from '../../services/folder-copy.js';
import { maxBytesOf, usedBytesOf } from '../../services/records.js';
import * as transfers from '../../services/transfers.js';
import { davNotFound } from './propfind.js';
import { copyDeadProps } from './state.js';
import { joinPath, parseDavPath, resourceAt, splitPath, type DavPath } from './paths.js';
import { parentGoneIs409, removeResource, requireParent } from './write.js';
import { answerEmpty } from './xml.js';

/** The Destination header as a path in the same user's tree. */
function destinationOf(ctx: Context, source: DavPath, hosts: Set<string>): DavPath {
  const header = ctx.get('Destination');
  if (!header) throw badRequest('COPY and MOVE need a Destination header');
  let url: URL;
  try {
    url = new URL(header, `http://${ctx.get('Host')}`);
  } catch {
    throw badRequest('The Destination header is not a URL');
  }
  if (!hosts.has(url.host.toLowerCase()) && url.host.toLowerCase() !== ctx.get('Host').toLowerCase())
    throw new ApiError('destination_elsewhere', 'The Destination is on another server');
  const target = parseDavPath(url.pathname);
  if (target.username !== source.username)
    throw new ApiError('forbidden', 'The Destination is outside your tree (another user’s, or /dav/ itself)');
  return { username: target.username, path: target.path };
}

/** The Destination's path when it parses (for naming the lock a 423 met), else nothing. */
export function destinationPaths(ctx: Context): string[] {
  const header = ctx.get('Destination');
  if (!header) return [];
  try {
    const target = parseDavPath(new URL(header, 'http://localhost').pathname);
    return target.username === null ? [] : [target.path];
  } catch {
    return [];
  }
}

export async function copyOrMove(ctx: Context, nimbus: NimbusContext, from: DavPath, hosts: Set<string>): Promise<void> {
  const move = ctx.method === 'MOVE';
  const depth = ctx.get('Depth').trim().toLowerCase() || 'infinity';
  if (depth !== 'infinity' && (move || depth !== '0'))
    throw badRequest(move ? 'MOVE takes only Depth: infinity' : 'COPY takes Depth 0 or infinity');
  const to = destinationOf(ctx, from, hosts);
  const source = resourceAt(nimbus, from);
  if (source.kind === 'none') throw davNotFound();
  if (from.path === '') throw new ApiError('forbidden', 'A user’s root cannot be copied or moved');
  if (to.path === from.path) throw new ApiError('forbidden', 'The source and the destination are the same');
  if (to.path === '') throw new ApiError('forbidden', 'Nothing can replace a user’s root');
  if (source.kind === 'folder' && to.path.startsWith(`${from.path}/`))
    throw new ApiError('forbidden', 'A collection cannot be copied or moved into itself');
  // Overwriting a folder that holds the source would put the source into the trash with it.
  if (from.path.startsWith(`${to.path}/`)) throw new ApiError('forbidden', 'A resource cannot replace a collection that holds it');
  requireParent(nimbus, to);
  const overwrite = (ctx.get('Overwrite').trim().toUpperCase() || 'T') === 'T';
  const existed = resourceAt(nimbus, to).kind !== 'none';
  if (existed && !overwrite) throw new ApiError('precondition_failed', 'Something exists at the Destination and Overwrite is F');
  if (existed) await removeResource(nimbus, to);
  const run = move ? moveTo : source.kind === 'file' ? copyFileTo : depth === '0' ? emptyFolderAt : copyFolderTo;
  await run(nimbus, from, to).catch(parentGoneIs409);
  // Dead properties go with a copy (a move's follow their resource inside the services).
  if (!move) await copyDeadProps(nimbus, from.username, from.path, to.path);
  answerEmpty(ctx, existed ? 204 : 201);
}

/** A move within the tree: a move to the new parent and a rename, in whichever order leaves no name clash on the way. */
async function moveTo(nimbus: NimbusContext, from: DavPath, to: DavPath): Promise<void> {
  const { username } = from;
  const src = splitPath(from.path);
  const dst = splitPath(to.path);
  const isFolder = resourceAt(nimbus, from).kind === 'folder';
  const moveInto = (path: string, parent: string | null) =>
    isFolder
      ? transfers.moveFolder(nimbus, username, path, parent)
      : transfers.moveFile(nimbus, username, splitPath(path).parent, splitPath(path).name, parent);
  const rename = (path: string, name: string) =>
    isFolder
      ? transfers.renameFolder(nimbus, username, path, name)
      : files.renameFile(nimbus, username, splitPath(path).parent, splitPath(path).name, name);
  if (src.parent === dst.parent) return void (await rename(from.path, dst.name));
  if (src.name === dst.name) return void (await moveInto(from.path, dst.parent));
  // Renamed first where it is, unless its new name is taken there; else moved first under its old name.
  if (!taken(nimbus, username, src.parent, dst.name)) {
    await rename(from.path, dst.name);
    await moveInto(joinPath(src.parent, dst.name), dst.parent);
  } else if (!taken(nimbus, username, dst.parent, src.name)) {
    await moveInto(from.path, dst.parent);
    await rename(joinPath(dst.parent, src.name), dst.name);
  } else throw conflict('conflict', 'The move would pass through a name that is taken; move and rename in two steps');
}

const taken = (nimbus: NimbusContext, username: string, folder: string | null, name: string): boolean =>
  nimbus.index.getFile(username, folder, name) !== undefined || nimbus.index.folder(username, joinPath(folder, name)) !== undefined;

/** A file copied under any name: an upload whose body is the source's bytes (as the API's copy), never replacing anything. */
async function copyFileTo(nimbus: NimbusContext, from: DavPath, to: DavPath): Promise<void> {
  const src = splitPath(from.path);
  const dst = splitPath(to.path);
  if (src.name === dst.name) return void (await transfers.copyFile(nimbus, from.username, src.parent, src.name, dst.parent));
  const opened = await nimbus.storage.openFile(from.username, src.parent, src.name);
  try {
    const body = opened.size === 0 ? Readable.from([]) : await opened.stream();
    body.on('error', () => undefined);
    await files.uploadFile(nimbus, {
      username: to.username,
      folder: dst.parent,
      file: dst.name,
      overwrite: false,
      declaredLength: opened.size,
      body,
    });
  } finally {
    await opened.close();
  }
}

/** COPY Depth 0 of a collection: an empty one (RFC 4918 §9.8.3). */
async function emptyFolderAt(nimbus: NimbusContext, _from: DavPath, to: DavPath): Promise<void> {
  await folders.createFolder(nimbus, to.username, to.path, false);
}

/**
 * A folder copied with its subtree: the service's whole copy (quota held first, appearing whole)
 * when the name stays; under another name, the folders made and the files copied one by one,
 * after a check that their bytes fit.
 */
async function copyFolderTo(nimbus: NimbusContext, from: DavPath, to: DavPath): Promise<void> {
  const { username } = from;
  const src = splitPath(from.path);
  const dst = splitPath(to.path);
  if (src.name === dst.name) return void (await copyFolder(nimbus, username, from.path, dst.parent));
  const node = nimbus.index.folder(username, from.path);
  const user = nimbus.store.users.get(username)!;
  const maxBytes = maxBytesOf(nimbus, user);
  const needed = node?.sizeBytes ?? 0;
  const used = usedBytesOf(nimbus, username);
  if (maxBytes >= 0 && used + needed > maxBytes) throw quotaExceeded(undefined, { needed, available: maxBytes - used });
  await copyTree(nimbus, username, from.path, to.path);
}

async function copyTree(nimbus: NimbusContext, username: string, from: string, to: string): Promise<void> {
  await folders.createFolder(nimbus, username, to, false);
  const node = nimbus.index.folder(username, from);
  if (!node) return;
  for (const name of [...node.files.keys()])
    await copyFileTo(nimbus, { username, path: joinPath(from, name) }, { username, path: joinPath(to, name) });
  for (const name of [...node.folders.keys()]) await copyTree(nimbus, username, joinPath(from, name), joinPath(to, name));
}
