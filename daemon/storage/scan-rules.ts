/**
 * What the scan (scan.ts, scan-sliced.ts) decides about each entry it meets: whether the API
 * can address its name and its folder path, where a folder lies against the tree's limits,
 * and which hidden names are leftovers of the daemon's own work a crash cut short.
 */
import { checkFileName, FOLDER_PATH_MAX_BYTES, FOLDER_PATH_MAX_LEVELS } from '../../shared/validation.js';
import type { FolderNode, UserNode } from './index-tree.js';
import { isStagingName } from './staging-names.js';

/** Whether a name found on disk is one the API can address (valid and already NFC). */
export function isAddressableName(name: string): boolean {
  const checked = checkFileName(name);
  return checked.ok && checked.value === name;
}

const utf8 = new TextEncoder();

/** Whether a folder path found on disk is within the tree's limits (levels and bytes), so the API can name it. */
export function isFolderPathInLimits(folder: string): boolean {
  let levels = 1;
  for (let i = folder.indexOf('/'); i >= 0; i = folder.indexOf('/', i + 1)) levels++;
  return (
    levels <= FOLDER_PATH_MAX_LEVELS && (folder.length * 3 <= FOLDER_PATH_MAX_BYTES || utf8.encode(folder).length <= FOLDER_PATH_MAX_BYTES)
  );
}

/**
 * Where a folder lies: how many levels below the user's directory, its path's length in UTF-8
 * bytes, and its name and parent (its path is rebuilt from them only for a leftover found there).
 */
export interface Place {
  level: number;
  bytes: number;
  name: string;
  parent: Place | null;
}
export const USER_DIR: Place = { level: 0, bytes: 0, name: '', parent: null };

/** The place of the folder `name` inside a folder at `parent`, or null when its path would pass the tree's limits (docs/tree.md). */
export function placeBelow(parent: Place, name: string): Place | null {
  const place = { level: parent.level + 1, bytes: parent.bytes + (parent.level > 0 ? 1 : 0) + utf8.encode(name).length, name, parent };
  return place.level > FOLDER_PATH_MAX_LEVELS || place.bytes > FOLDER_PATH_MAX_BYTES ? null : place;
}

/** What a directory is read into: the user's root (files and folders) or a folder node. */
export type Into = Pick<FolderNode, 'files' | 'folders'>;

/** A staging name found in a user's tree: the folder it is in (components below the user's directory) and its name. */
export interface Leftover {
  folder: string[];
  name: string;
}

/**
 * Notes `name`, an entry the scan skips in the folder at `place`, when it is a staging name
 * (staging-names.ts) and the caller collects them (`found`; the start-up scan does).
 */
export function noteLeftover(found: Leftover[] | null, place: Place, name: string): void {
  if (!found || !isStagingName(name)) return;
  const folder: string[] = [];
  for (let at: Place | null = place; at && at.level > 0; at = at.parent) folder.unshift(at.name);
  found.push({ folder, name });
}

/** Sets the user's usage from the root's files and each root folder's subtree. */
export function withUsage(node: UserNode): UserNode {
  let used = 0;
  for (const meta of node.root.values()) used += meta.size;
  for (const folder of node.folders.values()) used += folder.sizeBytes;
  node.usedBytes = used;
  return node;
}
