/**
 * glibc's malloc, told to keep what it frees at the top of its heap up to a few MiB instead of
 * giving it back to the kernel at once (`mallopt`, through koffi's FFI as storage/at-calls.ts).
 *
 * Why: a Buffer of 4 KiB or more is its own `malloc` (a page of 100 files is ~16 KB), freed
 * when V8's garbage collector finds a batch of them dead. Freed together, they leave more than
 * glibc's default 128 KiB free at the heap's top, which it returns to the kernel, and the next
 * answers fault the same pages in again. Measured under wrk, tuned and untuned alternating
 * (bench/NOTES.md, issue 30): a page of 100 took 0.1–1.75 page faults a request, 0 tuned; the
 * daemon's system time 14–16 → 11–12 µs a request; 21,600–24,400 → 25,100–28,600 requests/s.
 *
 * Setting the trim threshold also stops glibc from moving its thresholds as it goes, so the
 * mmap threshold is set too, where glibc's own moving rule would put it after one listing of
 * 10,000 files: an allocation below 4 MiB comes from the heap, not from its own `mmap` whose
 * pages fault in each time; at most 8 MiB stays free at a heap's top (what idle memory can
 * grow by, per malloc arena).
 *
 * Only where glibc is (Linux, not musl), and NIMBUS_MALLOC_TUNING=off leaves malloc as it is
 * (a switch for the bench's comparisons). Process-wide, so once per process.
 */
import { createRequire } from 'node:module';

const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;
const TRIM_THRESHOLD_BYTES = 8 * 1024 * 1024;
const MMAP_THRESHOLD_BYTES = 4 * 1024 * 1024;

type Mallopt = (param: number, value: number) => number;

let tuned: boolean | undefined;

/** Tunes malloc once per process; whether it is tuned (false where there is no glibc, or when switched off). */
export function tuneMalloc(env: NodeJS.ProcessEnv = process.env): boolean {
  if (tuned === undefined) tuned = tune(env);
  return tuned;
}

function tune(env: NodeJS.ProcessEnv): boolean {
  if (process.platform !== 'linux' || env.NIMBUS_MALLOC_TUNING === 'off') return false;
  let mallopt: Mallopt;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as { load(lib: string): { func(signature: string): Mallopt } };
    // musl has no libc.so.6 (and no mallopt worth the name): nothing to tune there.
    mallopt = koffi.load('libc.so.6').func('int mallopt(int, int)');
  } catch {
    return false;
  }
  // mallopt answers 1 on success, 0 on a value it refused.
  return mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) === 1 && mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES) === 1;
}
