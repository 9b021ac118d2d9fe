/**
 * Directories kept open across requests (storage/held-dirs.ts, via OpenDir.open): a held
 * directory is used only while it is still where it was walked to. Renamed (even into another
 * user's tree), replaced, deleted, or with a folder above it swapped for a link: the next open
 * walks again, and never hands out the old directory.
 */
import { fstatSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, rename, rm, symlink, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heldCount, releaseHeldUnder } from '../../../daemon/storage/held-dirs.js';
import { OpenDir, VIA_PROC } from '../../../daemon/storage/safe-dir.js';

let root: string;
const fdOf = (dir: OpenDir) => Number(dir.at().split('/').pop());
const openFds = () => readdirSync('/proc/self/fd').length;

/** Opens <root>/<components…>, returns its inode, and closes it (the lease ends; the directory stays held). */
async function inodeVia(components: string[]): Promise<number> {
  const dir = await OpenDir.open(root, components);
  try {
    return (await dir.stat()).ino;
  } finally {
    await dir.close();
  }
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'opened',
    (err: NodeJS.ErrnoException) => err.code,
  );

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-held-'));
  await mkdir(path.join(root, 'alice', 'docs', 'deep'), { recursive: true });
  await mkdir(path.join(root, 'bob'));
});
afterEach(async () => {
  releaseHeldUnder(root);
  await rm(root, { recursive: true, force: true });
});

describe.runIf(VIA_PROC)('held directories', () => {
  it('a second open of the same path is a lease on the same descriptor, and closing it leaves the directory held', async () => {
    const first = await OpenDir.open(root, ['alice', 'docs']);
    const second = await OpenDir.open(root, ['alice', 'docs']);
    const fd = fdOf(first);
    expect(fdOf(second)).toBe(fd);
    await first.close();
    await second.close();
    const third = await OpenDir.open(root, ['alice', 'docs']);
    expect(fdOf(third)).toBe(fd);
    expect(fstatSync(fdOf(third)).isDirectory()).toBe(true);
    await third.close();
    // A closed lease resolves nothing: its paths go nowhere, never to a reused descriptor.
    expect(third.at('x')).toBe('/proc/self/fd/-1/x');
  });

  it('moved into another user’s tree: the old path is not found, and nothing is written into the moved directory', async () => {
    const before = await inodeVia(['alice', 'docs']);
    await rename(path.join(root, 'alice', 'docs'), path.join(root, 'bob', 'stolen'));
    expect(await codeOf(OpenDir.open(root, ['alice', 'docs']))).toBe('ENOENT');
    expect((await lstat(path.join(root, 'bob', 'stolen'))).ino).toBe(before);
  });

  it('replaced by a new directory of the same name: the new one is used', async () => {
    const before = await inodeVia(['alice', 'docs']);
    await rename(path.join(root, 'alice', 'docs'), path.join(root, 'aside'));
    await mkdir(path.join(root, 'alice', 'docs'));
    const now = await OpenDir.open(root, ['alice', 'docs']);
    writeFileSync(now.at('new.txt'), 'x');
    await now.close();
    expect((await lstat(path.join(root, 'alice', 'docs'))).ino).not.toBe(before);
    expect(readdirSync(path.join(root, 'alice', 'docs'))).toEqual(['new.txt']);
    expect(readdirSync(path.join(root, 'aside'))).toEqual(['deep']);
  });

  it('a held directory’s fsync is its own: one made under its old name after a rename is another, the fsync shared only with itself', async () => {
    const old = await OpenDir.open(root, ['alice', 'docs']);
    await old.fsync(); // remembers the held directory's device and inode
    await rename(path.join(root, 'alice', 'docs'), path.join(root, 'aside'));
    await mkdir(path.join(root, 'alice', 'docs'));
    const replacement = await OpenDir.open(root, ['alice', 'docs']);
    expect(fdOf(replacement)).not.toBe(fdOf(old));
    // Both at once: with one identity the second would join the first's fsync (and not sync its own directory).
    const runningOld = old.fsync();
    const runningNew = replacement.fsync();
    expect(runningNew).not.toBe(runningOld);
    await Promise.all([runningOld, runningNew]);
    await old.close();
    await replacement.close();
    // Closed, it fails as before (never joins another fsync on the identity it remembered).
    await expect(old.fsync()).rejects.toThrow();
  });

  it('deleted: not found (and a new one made later is the one used)', async () => {
    await inodeVia(['alice', 'docs', 'deep']);
    await rm(path.join(root, 'alice', 'docs'), { recursive: true });
    expect(await codeOf(OpenDir.open(root, ['alice', 'docs', 'deep']))).toBe('ENOENT');
    await mkdir(path.join(root, 'alice', 'docs', 'deep'), { recursive: true });
    expect(await inodeVia(['alice', 'docs', 'deep'])).toBe(statSync(path.join(root, 'alice', 'docs', 'deep')).ino);
  });

  it('a folder above it swapped for a link to where it went: refused, though the held directory is the same one', async () => {
    await inodeVia(['alice', 'docs', 'deep']);
    await rename(path.join(root, 'alice'), path.join(root, 'alice-moved'));
    await symlink(path.join(root, 'alice-moved'), path.join(root, 'alice'));
    expect(await codeOf(OpenDir.open(root, ['alice', 'docs', 'deep']))).toBe('ENOTDIR');
    await unlink(path.join(root, 'alice'));
    await rename(path.join(root, 'alice-moved'), path.join(root, 'alice'));
    // Moved away and back: the same directory at the same place, still usable.
    expect(await codeOf(OpenDir.open(root, ['alice', 'docs', 'deep']).then((d) => d.close()))).toBe('opened');
  });

  it('a lease outlives its directory being dropped: the descriptor closes only when the last lease ends', async () => {
    const lease = await OpenDir.open(root, ['alice', 'docs']);
    const fd = fdOf(lease);
    await rename(path.join(root, 'alice', 'docs'), path.join(root, 'alice', 'renamed'));
    await mkdir(path.join(root, 'alice', 'docs'));
    const fresh = await OpenDir.open(root, ['alice', 'docs']);
    expect(fdOf(fresh)).not.toBe(fd);
    // The dropped directory is still this lease's, where it now is.
    expect(readlinkSync(`/proc/self/fd/${fd}`)).toBe(path.join(root, 'alice', 'renamed'));
    writeFileSync(lease.at('kept.txt'), 'x');
    expect(readdirSync(path.join(root, 'alice', 'renamed')).sort()).toEqual(['deep', 'kept.txt']);
    const count = openFds();
    await lease.close();
    expect(openFds()).toBe(count - 1);
    await fresh.close();
  });

  it('keeps at most 256 directories open, and lets go of them all when asked', async () => {
    const count = openFds();
    for (let i = 0; i < 300; i++) {
      await mkdir(path.join(root, 'bob', `f${i}`));
      await (await OpenDir.open(root, ['bob', `f${i}`])).close();
    }
    expect(heldCount()).toBeLessThanOrEqual(256);
    expect(openFds() - count).toBeLessThanOrEqual(256);
    releaseHeldUnder(root);
    expect(openFds()).toBe(count);
  });

  it('in a loop of renames, replacements, deletions and link swaps, every open finds exactly what the path holds at that instant', async () => {
    const home = path.join(root, 'alice');
    const target = ['alice', 'docs', 'deep'];
    const targetPath = path.join(root, ...target);
    for (let i = 0; i < 400; i++) {
      switch (i % 5) {
        case 0: // renamed away (into another user's tree), a new one made
          await rename(path.join(home, 'docs'), path.join(root, 'bob', `stolen${i}`));
          await mkdir(targetPath, { recursive: true });
          break;
        case 1: // deleted
          await rm(targetPath, { recursive: true });
          break;
        case 2: // made again, then its parent swapped for a link to a copy elsewhere
          await mkdir(targetPath, { recursive: true });
          await rename(path.join(home, 'docs'), path.join(root, `aside${i}`));
          await symlink(path.join(root, `aside${i}`), path.join(home, 'docs'));
          break;
        case 3: // the link replaced by the real directory again
          await unlink(path.join(home, 'docs'));
          await rename(path.join(root, `aside${i - 1}`), path.join(home, 'docs'));
          break;
        default: // the deepest one swapped for a directory of the same name from elsewhere
          await mkdir(path.join(root, `other${i}`));
          await rename(targetPath, path.join(root, `old${i}`));
          await rename(path.join(root, `other${i}`), targetPath);
      }
      // What a fresh walk would find right now, through real directories only.
      const parentIsLink = (await lstat(path.join(home, 'docs')).catch(() => null))?.isSymbolicLink() ?? false;
      const there = parentIsLink ? null : await lstat(targetPath).catch(() => null);
      const opened = await OpenDir.open(root, target).catch((err: NodeJS.ErrnoException) => err.code ?? 'error');
      if (typeof opened === 'string') {
        expect({ i, opened }).toEqual({ i, opened: parentIsLink ? 'ENOTDIR' : 'ENOENT' });
        expect(there).toBeNull();
      } else {
        expect({ i, ino: (await opened.stat()).ino }).toEqual({ i, ino: there?.ino });
        await opened.close();
        // Opened twice in a row with nothing changed: the second is the held one.
        expect((await inodeVia(target)) === there?.ino).toBe(true);
      }
    }
  });
});
