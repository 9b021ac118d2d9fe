/** The storage layer's one home of small fs helpers. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ignoreExists, ignoreMissing, isNoDir, readdirOrNull } from '../../../daemon/storage/fs-helpers.js';

const err = (code: string) => Object.assign(new Error(code), { code });

describe('fs helpers', () => {
  it('isNoDir: ENOENT and ENOTDIR only', () => {
    expect(isNoDir(err('ENOENT'))).toBe(true);
    expect(isNoDir(err('ENOTDIR'))).toBe(true);
    expect(isNoDir(err('EACCES'))).toBe(false);
    expect(isNoDir(undefined)).toBe(false);
  });

  it('ignoreMissing and ignoreExists swallow their one code and throw the rest', () => {
    expect(() => ignoreMissing(err('ENOENT'))).not.toThrow();
    expect(() => ignoreMissing(err('EACCES'))).toThrow('EACCES');
    expect(() => ignoreExists(err('EEXIST'))).not.toThrow();
    expect(() => ignoreExists(err('ENOENT'))).toThrow('ENOENT');
  });

  it('readdirOrNull: the entries, or null for a missing path or a file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-fsh-'));
    try {
      await writeFile(path.join(dir, 'a.txt'), 'a');
      expect((await readdirOrNull(dir))?.map((e) => e.name)).toEqual(['a.txt']);
      expect(await readdirOrNull(path.join(dir, 'missing'))).toBeNull();
      expect(await readdirOrNull(path.join(dir, 'a.txt'))).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
