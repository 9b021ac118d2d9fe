/**
 * One folder mirrored into another, file by file, while a daemon may be changing it: what
 * `nimbus backup` and `nimbus restore` copy with.
 *
 * - Each file is read through one open descriptor and written to a temp name beside its
 *   target, renamed into place only when complete: an interrupted run leaves whole files and
 *   temps (removed by the next run), never a torn file under a real name.
 * - A file is taken only when its size and mtime are the same before and after the copy and
 *   the bytes read match the size; the daemon replaces files by rename (a new inode, which
 *   leaves the open one whole), so only a writer changing a file in place makes a retry. After
 *   three tries the file is reported, and an older copy already in the target is kept.
 * - The copy gets the source's mtime, so the next run skips every file whose size and mtime
 *   still match (rsync's quick check): a second run copies only what changed or is missing.
 * - What the target holds and the source no longer does is removed: the target mirrors it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type Stats } from 'node:fs';
import { chmod, mkdir, open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isStagingName } from '../storage/staging-names.js';
import { errnoCode } from '../util/errno.js';

const TEMP = /^\.nimbus-backup-[0-9a-f]{16}\.part$/;
const TRIES = 3;

export interface FileRecord {
  /** Relative to the tree's root, with `/`. */
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
}

export interface TreeCopy {
  files: FileRecord[];
  copied: number;
  copiedBytes: number;
  unchanged: number;
  removed: number;
  /** Files that kept changing while they were read (the target keeps its older copy, if any). */
  changing: string[];
  /** Entries that are neither files nor folders (symlinks, sockets): not copied. */
  skipped: string[];
}

/** Mirrors `from` into `to`. `known` holds earlier runs' records (their sha256 saves reading an unchanged copy again). */
export async function copyTree(from: string, to: string, known: Map<string, FileRecord> = new Map()): Promise<TreeCopy> {
  const result: TreeCopy = { files: [], copied: 0, copiedBytes: 0, unchanged: 0, removed: 0, changing: [], skipped: [] };
  await mirrorDir(from, to, '', known, result);
  return result;
}

async function mirrorDir(from: string, to: string, rel: string, known: Map<string, FileRecord>, out: TreeCopy): Promise<void> {
  let entries;
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return; // gone meanwhile: the next run sees where it went
    throw err;
  }
  await mkdir(to, { recursive: true, mode: 0o700 });
  const kept = new Set<string>();
  for (const entry of entries) {
    // The daemon's own half-done work (a copy, a staged move) is not user data: a restart removes it.
    if (isStagingName(entry.name) || TEMP.test(entry.name)) continue;
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      kept.add(entry.name);
      await replaceIfNot(target, 'dir');
      await mirrorDir(path.join(from, entry.name), target, child, known, out);
    } else if (entry.isFile()) {
      if (await copyFileChecked(path.join(from, entry.name), target, child, known, out)) kept.add(entry.name);
    } else out.skipped.push(child);
  }
  for (const name of await readdir(to)) {
    if (kept.has(name)) continue;
    await rm(path.join(to, name), { recursive: true, force: true });
    if (!TEMP.test(name)) out.removed++;
  }
}

/** Removes what stands at `target` when it is not of the kind about to be written there. */
async function replaceIfNot(target: string, kind: 'dir' | 'file'): Promise<Stats | null> {
  const found = await stat(target).catch(() => null);
  if (found && (kind === 'dir' ? !found.isDirectory() : !found.isFile())) {
    await rm(target, { recursive: true, force: true });
    return null;
  }
  return found;
}

const sameVersion = (a: Pick<Stats, 'size' | 'mtimeMs'>, b: Pick<Stats, 'size' | 'mtimeMs'>): boolean =>
  a.size === b.size && Math.floor(a.mtimeMs) === Math.floor(b.mtimeMs);

/** Copies one file (or finds its copy current); false when the source vanished and there is nothing to keep. */
async function copyFileChecked(
  source: string,
  target: string,
  rel: string,
  known: Map<string, FileRecord>,
  out: TreeCopy,
): Promise<boolean> {
  for (let attempt = 0; attempt < TRIES; attempt++) {
    let handle;
    try {
      handle = await open(source, 'r');
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return false; // deleted meanwhile: not in this copy
      throw err;
    }
    try {
      const before = await handle.stat();
      const existing = await replaceIfNot(target, 'file');
      if (existing && sameVersion(existing, before)) {
        const earlier = known.get(rel);
        const sha256 = earlier && sameVersion(earlier, before) ? earlier.sha256 : await sha256Of(target);
        out.files.push({ path: rel, size: before.size, mtimeMs: Math.floor(before.mtimeMs), sha256 });
        out.unchanged++;
        return true;
      }
      const temp = path.join(path.dirname(target), `.nimbus-backup-${randomBytes(8).toString('hex')}.part`);
      const hash = createHash('sha256');
      let read = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          read += chunk.length;
          hash.update(chunk);
          done(null, chunk);
        },
      });
      // flush: the copy is fsynced before it takes its name, so a power cut cannot leave an empty file that looks current.
      await pipeline(
        createReadStream('', { fd: handle, autoClose: false, start: 0 }),
        count,
        createWriteStream(temp, { mode: 0o600, flush: true }),
      );
      const after = await handle.stat();
      if (!sameVersion(before, after) || read !== before.size) {
        await rm(temp, { force: true });
        continue;
      }
      await chmod(temp, before.mode & 0o777);
      await utimes(temp, before.atime, before.mtimeMs / 1000);
      await rename(temp, target);
      out.files.push({ path: rel, size: before.size, mtimeMs: Math.floor(before.mtimeMs), sha256: hash.digest('hex') });
      out.copied++;
      out.copiedBytes += before.size;
      return true;
    } finally {
      await handle.close();
    }
  }
  out.changing.push(rel);
  const kept = await stat(target).catch(() => null);
  const earlier = known.get(rel);
  if (kept && earlier && sameVersion(earlier, kept)) out.files.push(earlier);
  return kept !== null;
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
