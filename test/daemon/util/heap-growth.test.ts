/**
 * util/heap-growth.ts: V8's growing factor is set once per process, at start, unless
 * NIMBUS_HEAP_GROWTH=off. What it buys is measured in the bench, not here (bench/NOTES.md,
 * issue 30: a 64 KiB download 425–515 → 180–280 µs of CPU on the bench's dataset): V8 picks its
 * own factor from the timing of its collections, which a test cannot hold still. Run in child
 * processes, as the flag is process-wide.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runModuleJson } from '../../helpers/child.js';

const CHILD = `
import { tuneHeapGrowth } from ${JSON.stringify(path.join(ROOT, 'daemon', 'util', 'heap-growth.ts'))};
const first = tuneHeapGrowth();
// A second daemon in the same process (the tests start several) finds it decided.
const again = tuneHeapGrowth({ NIMBUS_HEAP_GROWTH: process.env.NIMBUS_HEAP_GROWTH === 'off' ? '' : 'off' });
console.log(JSON.stringify({ first, again }));
`;

const run = (env: NodeJS.ProcessEnv) => runModuleJson<{ first: boolean; again: boolean }>(CHILD, env);

describe('tuneHeapGrowth', () => {
  it('sets the factor by default, once per process, and NIMBUS_HEAP_GROWTH=off leaves V8 its own', () => {
    expect(run({ NIMBUS_HEAP_GROWTH: '' })).toEqual({ first: true, again: true });
    expect(run({ NIMBUS_HEAP_GROWTH: 'off' })).toEqual({ first: false, again: false });
  });
});
