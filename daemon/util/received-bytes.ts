/**
 * Keeps a streamed upload from growing the daemon's memory (issue 30: a 1 GiB upload grew it
 * by 35–50 MiB, the goal is under 16).
 *
 * node:http's parser copies each body chunk (≤ 64 KiB) into a Buffer of its own, outside V8's
 * heap. A chunk is garbage as soon as it is on disk, but its memory comes back only when a
 * minor collection finds it dead, and V8 starts one for memory outside its heap only after
 * 30–45 MiB of it (measured with process.memoryUsage().arrayBuffers sampled every 20 ms during
 * a 1 GiB upload: it climbed to 35–47 MiB between collections, whatever the young
 * generation's size). So the upload writer reports what it received, and every
 * COLLECT_EVERY_BYTES of it across all uploads this asks V8 for a minor collection (a
 * scavenge of the young generation, well under a millisecond with the daemon's small live set).
 *
 * V8 offers that only through its `gc` extension: it is switched on just long enough to take
 * the function from a fresh context, then off again, so no script context (and no module of
 * ours) sees a global `gc`. Where that fails, uploads go on as before.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** Bytes received between two collections: the most of them that waits for one. */
const COLLECT_EVERY_BYTES = 4 << 20;

type MinorCollection = () => void;

let collect: MinorCollection | null | undefined;
let sinceCollection = 0;

function minorCollection(): MinorCollection | null {
  if (collect !== undefined) return collect;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as (options: { type: 'minor' }) => void;
    collect = typeof gc === 'function' ? () => gc({ type: 'minor' }) : null;
  } catch {
    collect = null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

/**
 * Counts `bytes` of a request body that are now written (their Buffers dead), and when enough
 * have come since the last, runs a minor collection, after the current call stack so that the
 * batch just written is no longer held by it.
 */
export function noteBytesWritten(bytes: number): void {
  sinceCollection += bytes;
  if (sinceCollection < COLLECT_EVERY_BYTES) return;
  sinceCollection = 0;
  setImmediate(() => minorCollection()?.());
}
