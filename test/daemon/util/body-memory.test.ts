/**
 * util/body-memory.ts: every 8 MiB of request bodies the daemon asks V8 for a young-generation
 * collection (the buffers Node's HTTP parser copied each body piece into go back then), with a
 * `gc` that is never a global of the daemon's code nor of contexts made later.
 */
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { bodyBytesReceived } from '../../../daemon/util/body-memory.js';

/** The young-generation collections V8 reports while `fn` runs. */
async function minorCollectionsDuring(fn: () => void): Promise<number> {
  let minor = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor++;
  });
  observer.observe({ entryTypes: ['gc'] });
  fn();
  // The entries are delivered after the collection, on a later turn.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return minor;
}

describe('body memory', () => {
  it('collects the young generation once per 8 MiB of bodies, not per piece', async () => {
    // Whatever an earlier count left: 8 MiB more always crosses the mark once.
    const perPiece = 64 * 1024;
    expect(await minorCollectionsDuring(() => bodyBytesReceived(8 * 1024 * 1024))).toBeGreaterThanOrEqual(1);
    const during = await minorCollectionsDuring(() => {
      for (let i = 0; i < (64 * 1024 * 1024) / perPiece; i++) bodyBytesReceived(perPiece);
    });
    expect(during).toBeGreaterThanOrEqual(8);
    // Bounded by the bytes, not the pieces (1,024 of them): a few more may be V8's own.
    expect(during).toBeLessThan(40);
  });

  it('leaves no gc global behind, in this context or in one made later', () => {
    bodyBytesReceived(8 * 1024 * 1024);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  });
});
