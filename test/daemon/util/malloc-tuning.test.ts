/**
 * util/malloc-tuning.ts: with glibc's thresholds set, memory freed in a batch stays in the
 * process for the next allocations, instead of going back to the kernel and faulting in again.
 * Measured in child processes (mallopt is process-wide), by their page faults
 * (/proc/self/stat): the same work with and without the tuning.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runModuleJson } from '../../helpers/child.js';

/**
 * Through libc itself (koffi): 64 blocks of 64 KiB (heap blocks, below any mmap threshold),
 * written, all freed, 30 times; the page faults of those rounds. Freed at once, they leave
 * 4 MiB free at the heap's top: glibc's default (128 KiB) gives it back each time, the tuned
 * threshold keeps it.
 */
const CHILD = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tuneMalloc } from ${JSON.stringify(path.join(ROOT, 'daemon', 'util', 'malloc-tuning.ts'))};
const tuned = tuneMalloc();
const libc = createRequire(import.meta.url)('koffi').load('libc.so.6');
const malloc = libc.func('void *malloc(size_t)');
const free = libc.func('void free(void *)');
const memset = libc.func('void *memset(void *, int, size_t)');
const faults = () => Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[7]);
const round = () => {
  const blocks = [];
  for (let i = 0; i < 64; i++) blocks.push(memset(malloc(64 * 1024), i, 64 * 1024));
  for (const block of blocks) free(block);
};
round();
const before = faults();
for (let i = 0; i < 30; i++) round();
console.log(JSON.stringify({ tuned, faults: faults() - before }));
`;

const run = (env: NodeJS.ProcessEnv) => runModuleJson<{ tuned: boolean; faults: number }>(CHILD, env);

describe.runIf(process.platform === 'linux')('malloc tuning', () => {
  it('keeps freed buffers’ pages: a fraction of the page faults of the same work untuned', () => {
    const untuned = run({ NIMBUS_MALLOC_TUNING: 'off' });
    const tuned = run({ NIMBUS_MALLOC_TUNING: '' });
    expect(untuned.tuned).toBe(false);
    expect(tuned.tuned).toBe(true);
    // 30 rounds of 4 MiB given back are ~30,000 pages faulted in again.
    expect(untuned.faults).toBeGreaterThan(10_000);
    expect(tuned.faults).toBeLessThan(untuned.faults / 10);
  });
});
