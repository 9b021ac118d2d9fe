/**
 * The tree the third-party WebDAV clients carry up and back (issue 26): three levels, an empty
 * file, a few bytes, 1 MiB and 20 MiB of random bytes, names with spaces, unicode, `#`, `%` and
 * `+`, and an empty folder; then the edits a client makes inside it and `diff -r` to compare.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { rclone, runClient } from './dav-clients.js';

export interface TreeOptions {
  /** Bytes of the biggest file (20 MiB by default). */
  bigBytes?: number;
}

/** Paths of the tree, `/`-separated, relative to its root; folders end in `/`. */
export const TREE = {
  emptyFile: 'empty.txt',
  fewBytes: 'a few bytes.txt',
  mib: 'docs/one mib.bin',
  big: 'docs/b/twenty mib.bin',
  deep: 'docs/b/c/deep note.txt',
  unicode: 'docs/naïve café ☕.txt',
  hash: 'docs/b/issue #26.txt',
  percent: 'docs/b/100% done.txt',
  plus: 'docs/b/c/a+b=c.txt',
  emptyFolder: 'empty folder/',
  /** Renamed by the edits, to `renamed`. */
  toRename: 'docs/b/draft v1.txt',
  renamed: 'docs/b/final v2 ✓.txt',
  /** Deleted by the edits. */
  toDelete: 'docs/b/c/scratch.txt',
  /** A folder (with a subfolder) the edits remove whole. */
  toPurge: 'old stuff/',
  inPurge: ['old stuff/x.txt', 'old stuff/deeper/y.txt'],
} as const;

/** Writes the tree under `root` (which must not exist yet, or be empty). */
export async function makeTree(root: string, options: TreeOptions = {}): Promise<void> {
  const files: [string, Buffer][] = [
    [TREE.emptyFile, Buffer.alloc(0)],
    [TREE.fewBytes, Buffer.from('hi!\n')],
    [TREE.mib, randomBytes(2 ** 20)],
    [TREE.big, randomBytes(options.bigBytes ?? 20 * 2 ** 20)],
    [TREE.deep, Buffer.from('three levels down\n')],
    [TREE.unicode, Buffer.from('unicode name\n')],
    [TREE.hash, Buffer.from('a hash in the name\n')],
    [TREE.percent, Buffer.from('a percent sign in the name\n')],
    [TREE.plus, Buffer.from('a plus in the name\n')],
    [TREE.toRename, Buffer.from('first draft\n')],
    [TREE.toDelete, Buffer.from('to be deleted\n')],
    ...TREE.inPurge.map((p): [string, Buffer] => [p, Buffer.from(`${p}\n`)]),
  ];
  for (const [rel, bytes] of files) {
    const file = path.join(root, ...rel.split('/'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, bytes);
  }
  await mkdir(path.join(root, ...TREE.emptyFolder.split('/')), { recursive: true });
}

/** Applies to a local copy what the test's client did remotely: the rename, the delete and the purge. */
export async function applyEdits(root: string): Promise<void> {
  const at = (rel: string) => path.join(root, ...rel.split('/'));
  await rename(at(TREE.toRename), at(TREE.renamed));
  await rm(at(TREE.toDelete));
  await rm(at(TREE.toPurge), { recursive: true });
}

/**
 * Throws unless `actual` holds exactly `expected`'s files, folders and bytes (`diff -r`, with its
 * report in the error). `exclude` names entries diff skips (davfs2's local `lost+found`).
 */
export async function diffTrees(expected: string, actual: string, exclude: readonly string[] = []): Promise<void> {
  await runClient('diff', ['-r', ...exclude.flatMap((name) => ['-x', name]), expected, actual], { timeoutMs: 60_000 });
}

export interface RoundTripHooks {
  /** After the upload and `rclone check`: what the server shows of the tree (through its own API). */
  afterUpload?: () => Promise<void>;
  /** After the rename, the delete and the purge. */
  afterEdits?: () => Promise<void>;
  /** More rclone flags for every call (a peer's quirk; Nimbus's own runs take rclone's defaults). */
  flags?: readonly string[];
}

/**
 * issue 26's rclone round trip against `remote` (an empty collection, from rcloneWebdav): `rclone
 * copy` of the tree up, `rclone check --download` (byte for byte: WebDAV gives no hashes),
 * `rclone moveto`, `deletefile` and `purge` inside it, then `rclone sync` down into a fresh
 * directory that must equal the tree with those edits applied. `work` is an empty local directory.
 */
export async function rcloneRoundTrip(remote: string, work: string, hooks: RoundTripHooks = {}, options: TreeOptions = {}): Promise<void> {
  const source = path.join(work, 'source');
  const back = path.join(work, 'back');
  await makeTree(source, options);
  const at = (rel: string) => `${remote}${rel.replace(/\/$/, '')}`;
  const run = (args: string[]) => rclone([...(hooks.flags ?? []), ...args]);
  await run(['copy', '--create-empty-src-dirs', source, remote]);
  await run(['check', '--download', source, remote]);
  await hooks.afterUpload?.();
  await run(['moveto', at(TREE.toRename), at(TREE.renamed)]);
  await run(['deletefile', at(TREE.toDelete)]);
  await run(['purge', at(TREE.toPurge)]);
  await hooks.afterEdits?.();
  await applyEdits(source);
  await run(['sync', '--create-empty-src-dirs', remote, back]);
  await diffTrees(source, back);
}

/** The folder the mount's `mv` moves, and where to. */
export const MOUNT_MOVE = { from: 'docs/b', to: 'docs/b moved' } as const;

/**
 * issue 26's mount round trip inside a mounted collection (`mounted`, e.g. from mountDav): `cp -r`
 * of the tree in as `tree/`, `mv` of a folder, `rm -r` of another, then `diff -r` of the mounted
 * `tree/` against the same done locally. Resolves with the local expected tree, for the caller to
 * compare with what the server holds once unmounted.
 */
export async function mountRoundTrip(mounted: string, work: string, options: TreeOptions = {}): Promise<string> {
  const expected = path.join(work, 'tree');
  await makeTree(expected, options);
  const inMount = path.join(mounted, 'tree');
  await runClient('cp', ['-r', expected, inMount], { timeoutMs: 120_000 });
  const move = (root: string) =>
    runClient('mv', [path.join(root, ...MOUNT_MOVE.from.split('/')), path.join(root, ...MOUNT_MOVE.to.split('/'))]);
  const purge = (root: string) => runClient('rm', ['-r', path.join(root, ...TREE.toPurge.split('/'))]);
  await move(inMount);
  await purge(inMount);
  await move(expected);
  await purge(expected);
  await diffTrees(expected, inMount);
  return expected;
}
