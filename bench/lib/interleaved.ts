/**
 * One series of jobs run on several servers in turns of a few hundred jobs each, rather than
 * all of it on one server and then on the next: a state of the disk that fades while the
 * series run is then shared by every server, instead of weighing on whichever came first.
 *
 * Why (bench/NOTES.md, issue 30): on ext4 without a journal, a new inode skips every inode of
 * its group freed in the last 60 s, or 360 s once the inode table's block is dirty again
 * (`recently_deleted` in fs/ext4/ialloc.c: RECENTCY_MIN, RECENTCY_DIRTY), and a file made
 * meanwhile pays for each one it skips. The same daemon's 4 KiB uploads, one and two minutes
 * after the last deletion and a `sync`: 1,215–1,260 µs of CPU an upload in its first 2,000,
 * 875–970 in the next, ~300 once warm and past them. With whole series in turn, whichever
 * server came first in a round took most of that cost.
 */
import { waitUntilQuiet } from './machine.js';
import { settle } from './quiet-disk.js';
import { jobsPerSecond } from './stats.js';

/** Jobs a turn. */
export const TURN = 250;

export interface Interleaved {
  /** Jobs a second over the server's own turns. */
  perSec: number;
  /** The server's CPU µs a job, from the series' start until it was quiet after its last turn (NaN without a pid). */
  cpuUs: number;
}

/**
 * Runs `count` jobs on each server, in turns of TURN, the servers in the given order every turn.
 * Before each turn: a `sync`, and the server before it quiet (its background work done), so a
 * turn never shares the machine with another server's leftovers.
 */
export async function interleavedSeries<S extends { pid?: number }>(
  servers: readonly S[],
  count: number,
  connections: number,
  job: (server: S, i: number) => Promise<void>,
): Promise<Interleaved[]> {
  const quiet = (s: S, windowMs?: number, cpuMs?: number) =>
    s.pid === undefined ? Promise.resolve(Number.NaN) : waitUntilQuiet(s.pid, windowMs, cpuMs);
  const cpuBefore: number[] = [];
  for (const s of servers) cpuBefore.push(await quiet(s));
  const elapsedMs = servers.map(() => 0);
  for (let from = 0; from < count; from += TURN) {
    const to = Math.min(count, from + TURN);
    for (const [n, s] of servers.entries()) {
      settle();
      const perSec = await jobsPerSecond(to - from, connections, (i) => job(s, from + i));
      elapsedMs[n] += ((to - from) / perSec) * 1000;
      // /proc counts in 10 ms ticks: quiet is at most one tick in 100 ms.
      await quiet(s, 100, 11);
    }
  }
  const out: Interleaved[] = [];
  for (const [n, s] of servers.entries()) {
    const cpuAfter = await quiet(s);
    out.push({ perSec: count / (elapsedMs[n] / 1000), cpuUs: ((cpuAfter - cpuBefore[n]) * 1000) / count });
  }
  return out;
}
