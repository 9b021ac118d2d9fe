/** Directory fsyncs shared by writers waiting at once: who joins which fsync, and who never does. */
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsyncDirectoryShared } from '../../../daemon/storage/shared-fsync.js';

let root: string;
const fds: number[] = [];
const openDir = (p: string) => {
  const fd = openSync(p, 'r');
  fds.push(fd);
  return fd;
};

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-fsync-'));
});
afterEach(async () => {
  for (const fd of fds.splice(0)) closeSync(fd);
  await rm(root, { recursive: true, force: true });
});

describe('fsyncDirectoryShared', () => {
  it('starts at once when nothing runs, and those who arrive meanwhile share the one fsync after it', async () => {
    await mkdir(path.join(root, 'a'));
    const [one, two, three] = [openDir(path.join(root, 'a')), openDir(path.join(root, 'a')), openDir(path.join(root, 'a'))];
    const first = fsyncDirectoryShared(one);
    const second = fsyncDirectoryShared(two);
    const third = fsyncDirectoryShared(three);
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    let firstDone = false;
    void first.then(() => (firstDone = true));
    await second;
    expect(firstDone).toBe(true);
  });

  it('never hands a caller an fsync that began before it asked: a later call after the batch ends is a new fsync', async () => {
    await mkdir(path.join(root, 'a'));
    const fd = openDir(path.join(root, 'a'));
    const first = fsyncDirectoryShared(fd);
    await first;
    const later = fsyncDirectoryShared(fd);
    expect(later).not.toBe(first);
    await later;
  });

  it('keeps directories apart, also one renamed away and another made under its name', async () => {
    await mkdir(path.join(root, 'a'));
    await mkdir(path.join(root, 'b'));
    const a = openDir(path.join(root, 'a'));
    const b = openDir(path.join(root, 'b'));
    const runningA = fsyncDirectoryShared(a);
    const runningB = fsyncDirectoryShared(b);
    expect(runningB).not.toBe(runningA);
    await rename(path.join(root, 'a'), path.join(root, 'old-a'));
    await mkdir(path.join(root, 'a'));
    const waitingOld = fsyncDirectoryShared(a);
    const freshA = fsyncDirectoryShared(openDir(path.join(root, 'a')));
    expect(freshA).not.toBe(waitingOld);
    expect(freshA).not.toBe(runningA);
    await Promise.all([runningA, runningB, waitingOld, freshA]);
  });

  it('a descriptor that is not open throws at once and leaves nothing behind for the next caller', async () => {
    await mkdir(path.join(root, 'a'));
    const bad = 1_000_000; // not an open descriptor: fstat throws before anything is shared
    expect(() => fsyncDirectoryShared(bad)).toThrow();
    const fd = openDir(path.join(root, 'a'));
    await expect(Promise.all([fsyncDirectoryShared(fd), fsyncDirectoryShared(fd)])).resolves.toBeDefined();
  });
});
