/**
 * PUT, MKCOL and DELETE, each one call of the service the API's row calls (upload with
 * overwrite, folder create, delete to the trash), so quota, case twins, durability, share
 * links and events are the API's. WebDAV's statuses: a missing parent is 409, a PUT onto a
 * collection or a MKCOL onto anything 405.
 */
import type { Context } from 'koa';
import type { NimbusContext } from '../../context.js';
import { ApiError, badRequest, conflict } from '../../errors.js';
import * as files from '../../services/files.js';
import * as folders from '../../services/folders.js';
import type { Caller } from '../../services/keys.js';
import { davMayStill } from './auth.js';
import { davNotFound } from './propfind.js';
import { resourceAt, splitPath, type DavPath } from './paths.js';
import { answerEmpty, hasBody } from './xml.js';

/** 409: a resource cannot be made where its parent collection does not exist (RFC 4918 §9.7.1, §9.3.1). */
export const missingParent = () => conflict('conflict', 'The parent collection does not exist');

/** 405 for a method the resource does not take. */
export const notAllowed = (message: string) => new ApiError('method_not_allowed', message);

/** The parent folder of `at` must exist (the root always does): else 409. */
export function requireParent(nimbus: NimbusContext, at: DavPath): void {
  const { parent } = splitPath(at.path);
  if (parent !== null && !nimbus.index.folder(at.username, parent)) throw missingParent();
}

/** PUT: the body streamed through the upload service, replacing a file; 201 new, 204 replaced. */
export async function put(ctx: Context, nimbus: NimbusContext, at: DavPath, caller: Caller): Promise<void> {
  // RFC 9110 §14.5: a partial PUT is not something a server may guess at.
  if (ctx.get('Content-Range')) throw badRequest('A PUT with Content-Range (a partial write) is not supported: send the whole file');
  const resource = resourceAt(nimbus, at);
  if (resource.kind === 'folder') throw notAllowed('A collection cannot be written with PUT');
  requireParent(nimbus, at);
  const { parent, name } = splitPath(at.path);
  const length = ctx.get('Content-Length');
  await files
    .uploadFile(nimbus, {
      username: at.username,
      folder: parent,
      file: name,
      overwrite: true,
      declaredLength: /^\d+$/.test(length) ? Number(length) : null,
      body: ctx.req,
      callerMayStill: () => davMayStill(nimbus, caller, at.username),
    })
    .catch(parentGoneIs409);
  answerEmpty(ctx, resource.kind === 'file' ? 204 : 201);
}

/** MKCOL: one folder, its parent existing; 201. */
export async function mkcol(ctx: Context, nimbus: NimbusContext, at: DavPath): Promise<void> {
  // RFC 4918 §9.3: a body this server does not understand (none is defined) is 415.
  if (hasBody(ctx)) throw new ApiError('unsupported_media_type', 'MKCOL takes no body');
  if (resourceAt(nimbus, at).kind !== 'none') throw notAllowed('Something already exists at this URL');
  requireParent(nimbus, at);
  await folders.createFolder(nimbus, at.username, at.path, false).catch(parentGoneIs409);
  answerEmpty(ctx, 201);
}

/** DELETE: into the user's trash, as the API's delete; 204. The user's root is never deleted (403). */
export async function remove(ctx: Context, nimbus: NimbusContext, at: DavPath): Promise<void> {
  await removeResource(nimbus, at);
  answerEmpty(ctx, 204);
}

/** Deletes what is at `at` into the trash (COPY and MOVE with Overwrite: T use it too). */
export async function removeResource(nimbus: NimbusContext, at: DavPath): Promise<void> {
  if (at.path === '') throw new ApiError('forbidden', 'A user’s root cannot be deleted');
  const resource = resourceAt(nimbus, at);
  if (resource.kind === 'none') throw davNotFound();
  if (resource.kind === 'folder') await folders.deleteFolder(nimbus, at.username, at.path, false);
  else {
    const { parent, name } = splitPath(at.path);
    await files.deleteFile(nimbus, at.username, parent, name, false);
  }
}

/** A parent folder deleted while the request ran: the 409 WebDAV gives for a missing parent. */
export function parentGoneIs409(err: unknown): never {
  if (err instanceof ApiError && err.code === 'folder_not_found') throw missingParent();
  throw err;
}
