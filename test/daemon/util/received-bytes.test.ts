// The upload writers' minor collections (daemon/util/received-bytes.ts): dead body chunks are
// given back after a few MiB, and no script ever sees V8's `gc` function.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { noteBytesWritten } from '../../../daemon/util/received-bytes.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('noteBytesWritten', () => {
  it('frees dead Buffers outside the heap once enough bytes are written, and exposes no gc', async () => {
    // 24 MiB of chunks received and written: garbage, as an upload's chunks are once on disk.
    for (let i = 0; i < 384; i++) Buffer.alloc(64 << 10, i);
    const before = process.memoryUsage().arrayBuffers;
    noteBytesWritten(16 << 20);
    await nextTurn();
    await nextTurn();
    const after = process.memoryUsage().arrayBuffers;
    expect(before - after).toBeGreaterThan(16 << 20);

    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  });
});
