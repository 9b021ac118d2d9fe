// The upload writers' minor collections (daemon/util/received-bytes.ts): asked for once enough
// bytes are written, and no script ever sees V8's `gc` function. How much memory that keeps
// back is measured in the bench (a 1 GiB upload's RSS growth), not here: when V8 collects on its
// own is up to V8, so a test of freed bytes would pass or fail with the machine's load.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { noteBytesWritten } from '../../../daemon/util/received-bytes.js';

/** The kinds of the collections V8 runs while `during` does. */
async function collectionsDuring(during: () => Promise<void>): Promise<number[]> {
  const kinds: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) kinds.push((entry as unknown as { detail: { kind: number } }).detail.kind);
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    await during();
    // The observer is told on a later turn.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    observer.disconnect();
  }
  return kinds;
}

describe('noteBytesWritten', () => {
  it('runs a minor collection once enough bytes are written', async () => {
    const kinds = await collectionsDuring(async () => {
      noteBytesWritten(16 << 20);
      await new Promise((resolve) => setImmediate(resolve));
    });
    expect(kinds).toContain(constants.NODE_PERFORMANCE_GC_MINOR);
  });

  it('leaves no gc function to any script', () => {
    noteBytesWritten(16 << 20);
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  });
});
