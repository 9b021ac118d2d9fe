/**
 * Keeps a large upload from growing the daemon's memory. Node's HTTP parser copies each piece
 * of a request body into a new buffer (64 KiB), and that memory goes back only when V8 next
 * collects garbage, which a fast upload makes rarely: it allocates little besides those
 * buffers. A 1 GiB upload grew the daemon's RSS by up to 60 MiB (issue 30's goal: under 16);
 * with a young-generation collection after every 8 MiB of bodies, by 0–17 MiB, with a third
 * less CPU (bench/NOTES.md). A young collection of a daemon at rest takes well under a
 * millisecond: at 8 MiB a time that is ~128 per GiB.
 *
 * `gc` is taken from a fresh context with --expose-gc turned on only for that moment, as
 * Node's own documentation does it, so it is never a global of the daemon's code.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

const COLLECT_EVERY_BYTES = 8 << 20;

type Collect = (options: { type: 'minor' }) => void;
let since = 0;
let collect: Collect | null | undefined;

/** Counts body bytes received (every upload path); after each 8 MiB, a young-generation collection. */
export function bodyBytesReceived(bytes: number): void {
  since += bytes;
  if (since < COLLECT_EVERY_BYTES) return;
  since = 0;
  if (collect === undefined) collect = loadCollector();
  collect?.({ type: 'minor' });
}

function loadCollector(): Collect | null {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as Collect) : null;
  } catch {
    return null;
  } finally {
    // Contexts made later (none in the daemon today) get no `gc`.
    v8.setFlagsFromString('--no-expose-gc');
  }
}
