/**
 * Where a /dav/ URL points: `/dav/` (the users' roots), `/dav/<username>/` (a user's root) and
 * `/dav/<username>/<folder path>/<name>`. Each segment is percent-decoded, then checked as the
 * API checks names and folder paths (shared/validation.ts), so the same 400s; whether it is a
 * folder or a file is the index's answer, never the URL's trailing slash.
 */
import { checkAccountName, checkFileName, checkFolderPath } from '../../../shared/validation.js';
import type { NimbusContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import type { FileMeta } from '../../storage/index-tree.js';

export const DAV_PREFIX = '/dav';

/** A resource in a user's tree: `path` user-relative, '' for the root. */
export interface DavPath {
  username: string;
  path: string;
}

/** A parsed /dav/ URL path: null username for `/dav/` itself. */
export type DavTarget = DavPath | { username: null; path: '' };

/** The target of a URL path (already without query); 400 for a malformed escape or a name the API would refuse. */
export function parseDavPath(urlPath: string): DavTarget {
  if (urlPath !== DAV_PREFIX && !urlPath.startsWith(`${DAV_PREFIX}/`)) throw badRequest('Not a /dav/ path');
  const segments = urlPath
    .slice(DAV_PREFIX.length)
    .split('/')
    .filter((s) => s !== '')
    .map(decodeSegment);
  if (segments.length === 0) return { username: null, path: '' };
  const [username, ...names] = segments;
  const account = checkAccountName(username);
  if (!account.ok) throw badRequest(`The username ${account.message}`);
  for (const name of names) {
    const checked = checkFileName(name);
    if (!checked.ok) throw badRequest(`A name in the path ${checked.message}`);
  }
  const normalised = names.map((n) => n.normalize('NFC'));
  // The folders above the last name obey the folder path's limits (64 levels, 4,096 bytes).
  if (normalised.length > 1) {
    const folder = checkFolderPath(normalised.slice(0, -1).join('/'));
    if (!folder.ok) throw badRequest(`The folder path ${folder.message}`);
  }
  return { username, path: normalised.join('/') };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('The path has a malformed percent escape');
  }
}

/** The parent of a user-relative path (null for the root's children) and its last name. */
export function splitPath(path: string): { parent: string | null; name: string } {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? { parent: null, name: path } : { parent: path.slice(0, slash), name: path.slice(slash + 1) };
}

/** Joins a folder (null: root) and a name into a user-relative path. */
export const joinPath = (folder: string | null, name: string): string => (folder === null || folder === '' ? name : `${folder}/${name}`);

/** The folder a user-relative path names as the services take it ('' → null). */
export const asFolder = (path: string): string | null => (path === '' ? null : path);

export type Resource = { kind: 'folder' } | { kind: 'file'; meta: FileMeta } | { kind: 'none' };

/** What the index has at `path`: the user's root and folders are collections, files are files. */
export function resourceAt(nimbus: NimbusContext, at: DavPath): Resource {
  if (at.path === '') return { kind: 'folder' };
  if (nimbus.index.folder(at.username, at.path)) return { kind: 'folder' };
  const { parent, name } = splitPath(at.path);
  const meta = nimbus.index.getFile(at.username, parent, name);
  return meta ? { kind: 'file', meta } : { kind: 'none' };
}

/** One segment percent-encoded for an href (everything but unreserved characters). */
export const encodeSegment = (name: string): string =>
  encodeURIComponent(name).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The absolute, percent-encoded href of a resource; a collection's ends with `/`. */
export function hrefOf(username: string | null, path: string, collection: boolean): string {
  if (username === null) return `${DAV_PREFIX}/`;
  const tail = path === '' ? '' : `/${path.split('/').map(encodeSegment).join('/')}`;
  return `${DAV_PREFIX}/${encodeSegment(username)}${tail}${collection ? '/' : ''}`;
}
