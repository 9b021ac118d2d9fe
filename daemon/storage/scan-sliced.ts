/**
 * The scan on Linux (scan.ts says why): the same reads and the same rules as the
 * promise-based one, the system calls made synchronously, a slice of about a millisecond at a
 * time with the event loop let through between slices (`slicer`, sliced-dir.ts).
 */
import { fstatSync, lstatSync } from 'node:fs';
import { emptyUser, folderOfDir, sumFolder, type FileMeta, type UserNode } from './index-tree.js';
import { isAddressableName, noteLeftover, placeBelow, USER_DIR, withUsage, type Into, type Leftover, type Place } from './scan-rules.js';
import { DIR_FLAGS, openDirOrNull, readdirSyncOrNull, slicer, type SyncDir } from './sliced-dir.js';

/** `scanUserDir` on Linux: the same reads and the same rules, made synchronously in slices. */
export async function scanUserDirSliced(storageDir: string, username: string, leftovers: Leftover[] | null): Promise<UserNode> {
  const node: UserNode = { ...emptyUser(), unaddressable: 0 };
  // The storage directory is the operator's choice (followed); the user's directory is not.
  const root = openDirOrNull(storageDir, DIR_FLAGS);
  if (!root) return node;
  let dir: SyncDir | null;
  try {
    dir = root.child(username);
  } finally {
    root.close();
  }
  if (!dir) return node;
  try {
    await readTreeSliced(dir, USER_DIR, { files: node.root, folders: node.folders }, node, leftovers);
  } finally {
    dir.close();
  }
  await slicer.due();
  return withUsage(node);
}

async function readTreeSliced(dir: SyncDir, place: Place, into: Into, user: UserNode, leftovers: Leftover[] | null): Promise<void> {
  const files: string[] = [];
  for (const entry of readdirSyncOrNull(dir.at()) ?? []) {
    if (!isAddressableName(entry.name)) {
      noteLeftover(leftovers, place, entry.name);
      continue;
    }
    if (entry.isFile()) files.push(entry.name);
    if (!entry.isDirectory()) continue;
    await slicer.due();
    const sub = dir.child(entry.name);
    if (!sub) continue;
    try {
      const below = placeBelow(place, entry.name);
      if (!below) {
        user.unaddressable = (user.unaddressable ?? 0) + 1 + countEntriesSync(sub);
        continue;
      }
      const folder = folderOfDir(fstatSync(sub.fd));
      await readTreeSliced(sub, below, folder, user, leftovers);
      into.folders.set(entry.name, sumFolder(folder));
    } finally {
      sub.close();
    }
  }
  await statIntoSliced(dir.at(), files, into.files);
}

function countEntriesSync(dir: SyncDir): number {
  let count = 0;
  for (const entry of readdirSyncOrNull(dir.at()) ?? []) {
    if (entry.isFile()) count += 1;
    if (!entry.isDirectory()) continue;
    const sub = dir.child(entry.name);
    if (!sub) continue;
    try {
      count += 1 + countEntriesSync(sub);
    } finally {
      sub.close();
    }
  }
  return count;
}

/** `statInto` on Linux: lstat made synchronously, the loop let through between slices. */
export async function statIntoSliced(dir: string, names: string[], into: Map<string, FileMeta>): Promise<void> {
  for (const name of names) {
    let stat;
    try {
      stat = lstatSync(`${dir}/${name}`);
    } catch {
      stat = null;
    }
    if (stat?.isFile()) into.set(name, { size: stat.size, mtimeMs: stat.mtimeMs });
    const pause = slicer.due();
    if (pause) await pause;
  }
}
