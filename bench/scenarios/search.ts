/**
 * files.search over the user with every file of the dataset (100,000 at full scale, in 1,000
 * folders): sequential requests, timed over HTTP from request to last byte, against a page of
 * files.list of the same user in the same run.
 */
import type { Bench } from '../lib/context.js';
import { BIG_USER } from '../lib/dataset.js';
import { request } from '../lib/nimbus.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';

const WARM_UPS = 3;
const SAMPLES = 40;
const TARGET_P95_MS = 10;

/** Queries from one hit to thousands, and one that matches nothing (the bare scan). */
const QUERIES = ['file-09999', 'FILE-0005', '.PDF', 'no-such-name'];

async function timed(b: Bench, route: string): Promise<{ times: number[]; total: string }> {
  const url = `${b.nimbus.url}${route}`;
  const times: number[] = [];
  let total = '';
  for (let i = 0; i < WARM_UPS + SAMPLES; i++) {
    const start = performance.now();
    const reply = await request('GET', url, b.nimbus.key);
    const ms = performance.now() - start;
    if (reply.status !== 200) throw new Error(`GET ${route} answered ${reply.status}`);
    total = String(reply.headers['x-total-count'] ?? '?');
    if (i >= WARM_UPS) times.push(ms);
  }
  return { times, total };
}

export async function searchRow(b: Bench): Promise<Row> {
  const files = b.ds.spec.files.toLocaleString('en-US');
  const all: number[] = [];
  const per: string[] = [];
  for (const q of QUERIES) {
    const route = `/api/files/search?username=${BIG_USER}&q=${encodeURIComponent(q)}&limit=100`;
    const { times, total } = await timed(b, route);
    all.push(...times);
    per.push(`\`${q}\` (${total} hits) median ${fmt.ms(median(times))}, p95 ${fmt.ms(percentile(times, 95))}`);
    b.log(`  q=${q}: ${total} hits, median ${fmt.ms(median(times))}, p95 ${fmt.ms(percentile(times, 95))}`);
  }
  const baseRoute = `/api/files?username=${BIG_USER}&folder=${b.ds.bigFolder}&limit=100`;
  const base = await timed(b, baseRoute);
  const p95 = percentile(all, 95);
  const baseP95 = percentile(base.times, 95);
  return {
    scenario: `Search ${files} files (GET /api/files/search, limit=100)`,
    nimbus: `median ${fmt.ms(median(all))}, p95 ${fmt.ms(p95)}`,
    baseline: `median ${fmt.ms(median(base.times))}, p95 ${fmt.ms(baseP95)}`,
    ratio: `p95 ${fmt.ratio(p95 / baseP95)}`,
    target: `p95 ≤ ${TARGET_P95_MS} ms`,
    verdict: verdict(p95 <= TARGET_P95_MS),
    detail:
      `${SAMPLES} sequential requests per query after ${WARM_UPS} warm-ups, timed over HTTP (loopback) from request to last byte, ` +
      `so the server-side time is at most this; ${per.join('; ')}. ` +
      `Baseline: \`GET ${baseRoute}\` the same way in the same run.`,
  };
}
