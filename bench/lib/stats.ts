/** Small statistics over samples: medians and nearest-rank percentiles; and the rate of jobs run on a number of connections. */

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Milliseconds since `start` (a `performance.now()` reading). */
export const since = (start: number): number => performance.now() - start;

/** Runs `count` jobs on `connections` workers (each one job after another); resolves with jobs per second. */
export async function jobsPerSecond(count: number, connections: number, job: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) await job(next++);
    }),
  );
  return count / ((performance.now() - t0) / 1000);
}
