/**
 * The upload seam (daemon/storage/upload-call.ts) on the disk's Storage over a real directory:
 * the order in which storage calls the services' hooks, and that every way out (a refusal
 * before the body, during it, under the name's lock, a short body) releases what was held
 * once and leaves no temp file.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../daemon/errors.js';
import { FileIndex } from '../../../daemon/storage/file-index.js';
import { Storage } from '../../../daemon/storage/storage.js';
import type { UploadHooks } from '../../../daemon/storage/upload-call.js';

let root = '';
let storage: Storage;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-upload-call-'));
  await mkdir(path.join(root, 'storage', 'ana'), { recursive: true });
  const index = new FileIndex();
  index.ensureUser('ana');
  storage = new Storage(path.join(root, 'storage'), path.join(root, 'tmp'), index);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Hooks that record each call; `refuse` names the hook that throws. */
function recordingHooks(refuse?: keyof UploadHooks, refuseAt = 0) {
  const calls: string[] = [];
  const totals: number[] = [];
  const refusal = new ApiError('quota_exceeded', 'Refused by the test');
  const step = (name: keyof UploadHooks) => {
    calls.push(name);
    if (name === refuse) throw refusal;
  };
  const hooks: UploadHooks = {
    checkTarget: () => step('checkTarget'),
    beforeBody: () => step('beforeBody'),
    reserve: (total) => {
      calls.push('reserve');
      totals.push(total);
      if (refuse === 'reserve' && total > refuseAt) throw refusal;
    },
    lockName: (place) => {
      step('lockName');
      return place();
    },
    beforePlace: () => step('beforePlace'),
    isCurrent: () => {
      calls.push('isCurrent');
      return true;
    },
    release: async () => {
      calls.push('release');
    },
  };
  return { hooks, calls, totals, refusal };
}

/** The calls with repeats in a row shown once (how many totals a body makes depends on how its chunks are batched). */
const collapsed = (calls: string[]) => calls.filter((c, i) => c !== calls[i - 1]);
const body = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c)));
const upload = (hooks: UploadHooks, expectedSize: number | null, source = body('hello ', 'world')) =>
  storage.upload({ username: 'ana', folder: null, file: 'a.txt', overwrite: false, body: source, expectedSize }, hooks);
const tempFiles = () => readdir(path.join(root, 'tmp')).catch(() => [] as string[]);

describe('storage.upload', () => {
  it('calls the hooks in order: target, before the body, each total, the name lock, before placing, the ticket, release', async () => {
    const { hooks, calls } = recordingHooks();
    const meta = await upload(hooks, 11);
    expect(meta.size).toBe(11);
    expect(collapsed(calls)).toEqual(['checkTarget', 'beforeBody', 'reserve', 'lockName', 'beforePlace', 'isCurrent', 'release']);
    expect(await readFile(path.join(root, 'storage', 'ana', 'a.txt'), 'utf8')).toBe('hello world');
    expect(await tempFiles()).toEqual([]);
  });

  it('a refusal by checkTarget holds nothing, so nothing is released and no body is read', async () => {
    const { hooks, calls, refusal } = recordingHooks('checkTarget');
    await expect(upload(hooks, 11)).rejects.toBe(refusal);
    expect(calls).toEqual(['checkTarget']);
    expect(await tempFiles()).toEqual([]);
  });

  it.each([
    ['beforeBody', ['checkTarget', 'beforeBody', 'release']],
    ['reserve', ['checkTarget', 'beforeBody', 'reserve', 'release']],
    ['beforePlace', ['checkTarget', 'beforeBody', 'reserve', 'lockName', 'beforePlace', 'release']],
  ] as const)('a refusal by %s releases once and leaves no temp file and no file', async (refuse, expected) => {
    const { hooks, calls, refusal } = recordingHooks(refuse, 6);
    await expect(upload(hooks, null)).rejects.toBe(refusal);
    expect(collapsed(calls)).toEqual(expected);
    expect(await tempFiles()).toEqual([]);
    expect(await readdir(path.join(root, 'storage', 'ana'))).toEqual([]);
  });

  it('a body shorter than expected is a 400 before the name lock, released, with no temp file', async () => {
    const { hooks, calls } = recordingHooks();
    await expect(upload(hooks, 20)).rejects.toMatchObject({ code: 'bad_request' });
    expect(calls.at(-1)).toBe('release');
    expect(calls).not.toContain('lockName');
    expect(await tempFiles()).toEqual([]);
  });

  it('a body longer than expected is stopped before the hooks see the extra bytes', async () => {
    const { hooks, calls, totals } = recordingHooks();
    await expect(upload(hooks, 6)).rejects.toMatchObject({ code: 'bad_request' });
    expect(totals.every((t) => t <= 6)).toBe(true);
    expect(calls).not.toContain('lockName');
    expect(calls.at(-1)).toBe('release');
    expect(await tempFiles()).toEqual([]);
  });
});
