/**
 * V8's old generation, let grow to twice what the last full collection kept before the next
 * one begins (`--heap-growing-percent=100`), instead of V8's own factor, which it picks from
 * how fast its last collections ran and which sat near its floor (1.1) in the daemon.
 *
 * Why: the daemon holds its index in the heap (~55 MB for the bench's 100,000 files and
 * 10,000 users), and every request promotes a little of its garbage. At V8's own factor a
 * series of 64 KiB transfers began a full collection every 0.1–0.4 s, each freeing 1–8 MB
 * and marking all 55 MB again on V8's helper threads: `perf` put ~35 % of the daemon's CPU in
 * concurrent marking and sweeping, and a 64 KiB download cost 425–515 µs of CPU against
 * 180–280 µs with the factor set (bench/NOTES.md, issue 30). The price is memory: the heap
 * may grow to twice what was live at the last full collection before it runs again.
 *
 * V8 reads the flag at each full collection's end, so setting it at start (not only on the
 * command line) takes effect; process-wide, so once per process. NIMBUS_HEAP_GROWTH=off
 * leaves V8's own factor (a switch for the bench's comparisons).
 */
import v8 from 'node:v8';

const HEAP_GROWING_PERCENT = 100;

let set: boolean | undefined;

/** Sets the factor once per process; whether it is set (false when switched off). */
export function tuneHeapGrowth(env: NodeJS.ProcessEnv = process.env): boolean {
  if (set === undefined) {
    set = env.NIMBUS_HEAP_GROWTH !== 'off';
    if (set) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  }
  return set;
}
