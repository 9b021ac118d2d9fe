/**
 * The *at() calls through koffi (storage/at-calls.ts): on Linux they load, and what they answer
 * is what Node's own calls on the /proc paths answer — every field of an lstat, null for
 * nothing there, the same error codes — and the last name is never followed.
 */
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AT_FDCWD, atCalls, type AtCalls } from '../../../daemon/storage/at-calls.js';

const linux = process.platform === 'linux';
let root: string;
let fd: number;
let at: AtCalls;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-at-'));
  fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  at = atCalls()!;
});

afterEach(async () => {
  closeSync(fd);
  await rm(root, { recursive: true, force: true });
});

const codeOf = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
};

describe.runIf(linux)('at-calls', () => {
  it('load on Linux (a koffi that failed to load would leave every request on the slower /proc paths)', () => {
    expect(atCalls()).not.toBeNull();
  });

  it('answer an lstat with every field fs.lstat gives, on a file, a directory, a link, a dangling link and a fifo', () => {
    writeFileSync(path.join(root, 'file.txt'), 'x'.repeat(5000));
    mkdirSync(path.join(root, 'dir'));
    symlinkSync('file.txt', path.join(root, 'link'));
    symlinkSync('/nowhere/at/all', path.join(root, 'dangling'));
    execFileSync('mkfifo', [path.join(root, 'fifo')]);
    const decomposed = 'ünïcödé'.normalize('NFD');
    writeFileSync(path.join(root, decomposed), '');
    for (const name of ['file.txt', 'dir', 'link', 'dangling', 'fifo', decomposed]) {
      const ours = at.lstat(fd, name)!;
      const node = lstatSync(path.join(root, name));
      expect({ ...ours }, name).toEqual({ ...node });
      expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(node));
      expect([ours.isFile(), ours.isDirectory(), ours.isSymbolicLink(), ours.isFIFO()], name).toEqual([
        node.isFile(),
        node.isDirectory(),
        node.isSymbolicLink(),
        node.isFIFO(),
      ]);
      expect(ours.mtime.getTime()).toBe(node.mtime.getTime());
    }
  });

  it('answer null for nothing there and for a name below a file, as lstatIn did', () => {
    writeFileSync(path.join(root, 'file.txt'), 'x');
    expect(at.lstat(fd, 'missing')).toBeNull();
    expect(at.lstat(fd, 'file.txt/below')).toBeNull();
  });

  it('link without replacing (EEXIST) and without following a link; unlink fails with ENOENT for nothing', () => {
    writeFileSync(path.join(root, 'a'), 'a');
    writeFileSync(path.join(root, 'b'), 'b');
    symlinkSync('/etc/passwd', path.join(root, 'evil'));
    expect(codeOf(() => at.link(fd, 'a', fd, 'b'))).toBe('EEXIST');
    expect(codeOf(() => at.link(fd, 'missing', fd, 'c'))).toBe('ENOENT');
    at.link(fd, 'evil', fd, 'evil2');
    expect(lstatSync(path.join(root, 'evil2')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(root, 'evil2'))).toBe('/etc/passwd');
    at.link(fd, 'a', fd, 'c');
    expect(lstatSync(path.join(root, 'c')).ino).toBe(lstatSync(path.join(root, 'a')).ino);
    at.unlink(fd, 'a');
    expect(at.lstat(fd, 'a')).toBeNull();
    const err = (() => {
      try {
        at.unlink(fd, 'a');
      } catch (e) {
        return e as NodeJS.ErrnoException;
      }
    })();
    expect(err).toMatchObject({ code: 'ENOENT', syscall: 'unlink', errno: -os.constants.errno.ENOENT });
  });

  it('rename without replacing: EEXIST leaves both files as they were; a link moves as itself; across two directories', () => {
    writeFileSync(path.join(root, 'a'), 'a');
    writeFileSync(path.join(root, 'b'), 'b');
    symlinkSync('/etc/passwd', path.join(root, 'evil'));
    mkdirSync(path.join(root, 'sub'));
    expect(codeOf(() => at.renameNoReplace(fd, 'a', fd, 'b'))).toBe('EEXIST');
    expect([readFileSync(path.join(root, 'a'), 'utf8'), readFileSync(path.join(root, 'b'), 'utf8')]).toEqual(['a', 'b']);
    expect(codeOf(() => at.renameNoReplace(fd, 'missing', fd, 'c'))).toBe('ENOENT');
    at.renameNoReplace(fd, 'evil', fd, 'evil2');
    expect(readlinkSync(path.join(root, 'evil2'))).toBe('/etc/passwd');
    const sub = openSync(path.join(root, 'sub'), constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      const ino = lstatSync(path.join(root, 'a')).ino;
      at.renameNoReplace(fd, 'a', sub, 'a');
      expect(at.lstat(fd, 'a')).toBeNull();
      expect(lstatSync(path.join(root, 'sub', 'a')).ino).toBe(ino);
    } finally {
      closeSync(sub);
    }
  });

  it('rename from an absolute path into a directory open (an upload’s temp file taking its name), never replacing', async () => {
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'nimbus-at-tmp-'));
    try {
      const temp = path.join(elsewhere, 'upload-1');
      writeFileSync(temp, 'new');
      writeFileSync(path.join(root, 'taken'), 'old');
      expect(codeOf(() => at.renameNoReplace(AT_FDCWD, temp, fd, 'taken'))).toBe('EEXIST');
      expect(readFileSync(path.join(root, 'taken'), 'utf8')).toBe('old');
      at.renameNoReplace(AT_FDCWD, temp, fd, 'free');
      expect(readFileSync(path.join(root, 'free'), 'utf8')).toBe('new');
      expect(codeOf(() => lstatSync(temp))).toBe('ENOENT');
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('rename from an absolute path replacing a file (an overwrite taking its name); a link at the name is replaced, never followed', async () => {
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'nimbus-at-tmp-'));
    try {
      const temp = path.join(elsewhere, 'upload-2');
      writeFileSync(temp, 'new');
      writeFileSync(path.join(root, 'taken'), 'old');
      at.rename(AT_FDCWD, temp, fd, 'taken');
      expect(readFileSync(path.join(root, 'taken'), 'utf8')).toBe('new');
      expect(codeOf(() => lstatSync(temp))).toBe('ENOENT');
      const outside = path.join(elsewhere, 'outside');
      writeFileSync(outside, 'untouched');
      symlinkSync(outside, path.join(root, 'link'));
      writeFileSync(temp, 'newer');
      at.rename(AT_FDCWD, temp, fd, 'link');
      expect(lstatSync(path.join(root, 'link')).isFile()).toBe(true);
      expect(readFileSync(outside, 'utf8')).toBe('untouched');
      expect(codeOf(() => at.rename(AT_FDCWD, temp, fd, 'again'))).toBe('ENOENT');
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('resolve in the directory open, wherever it is now: a directory renamed and a link put at its old path change nothing', () => {
    mkdirSync(path.join(root, 'd'));
    writeFileSync(path.join(root, 'd', 'f'), 'in d');
    mkdirSync(path.join(root, 'elsewhere'));
    writeFileSync(path.join(root, 'elsewhere', 'f'), 'elsewhere, bigger');
    const dirFd = openSync(path.join(root, 'd'), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      renameSync(path.join(root, 'd'), path.join(root, 'moved'));
      symlinkSync('elsewhere', path.join(root, 'd'));
      expect(at.lstat(dirFd, 'f')!.size).toBe(4);
      at.link(dirFd, 'f', dirFd, 'g');
      expect(lstatSync(path.join(root, 'moved', 'g')).size).toBe(4);
      expect(() => lstatSync(path.join(root, 'elsewhere', 'g'))).toThrow();
    } finally {
      closeSync(dirFd);
    }
  });

  it('say where an open directory is now, byte for byte as readlink of /proc/self/fd says: renamed, deleted; nothing for no descriptor', () => {
    const name = 'dir é\u00e9';
    mkdirSync(path.join(root, name));
    const dirFd = openSync(path.join(root, name), constants.O_RDONLY | constants.O_DIRECTORY);
    const proc = () => readlinkSync(`/proc/self/fd/${dirFd}`, { encoding: 'buffer' });
    try {
      expect(Buffer.from(at.pathOf(dirFd)!)).toEqual(proc());
      renameSync(path.join(root, name), path.join(root, 'moved'));
      expect(at.pathOf(dirFd)!.toString()).toBe(path.join(readlinkSync(`/proc/self/fd/${fd}`), 'moved'));
      execFileSync('rmdir', [path.join(root, 'moved')]);
      expect(Buffer.from(at.pathOf(dirFd)!)).toEqual(proc());
      expect(at.pathOf(dirFd)!.toString()).toMatch(/ \(deleted\)$/);
    } finally {
      closeSync(dirFd);
    }
    // No such descriptor (a closed one's number may be taken again at once by another thread's open).
    expect(at.pathOf(999_999)).toBeNull();
  });
});
