/**
 * Group commit: 1,000 concurrent POST /api/user/role on 1,000 different users, each
 * answered only once durable, against what durability costs on this disk done naively —
 * 1,000 sequential fsync'ed writes of 1 KiB.
 */
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Bench } from '../lib/context.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import type { DbData } from '../../daemon/store/schema.js';

/** Fires one request per user, all at once, each on its own connection; returns the wall time and each latency. */
export async function concurrently(
  target: { url: string; key: string },
  users: string[],
  method: string,
  route: (username: string) => string,
  expect: number,
): Promise<{ wallMs: number; latencies: number[] }> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const start = performance.now();
  const latencies = await Promise.all(
    users.map(
      (username) =>
        new Promise<number>((resolve, reject) => {
          const t0 = performance.now();
          const req = http.request(`${target.url}${route(username)}`, { method, agent, headers: { 'API-Key': target.key } }, (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === expect
                ? resolve(performance.now() - t0)
                : reject(new Error(`${method} ${route(username)} answered ${res.statusCode}`)),
            );
          });
          req.on('error', reject);
          req.end();
        }),
    ),
  );
  const wallMs = performance.now() - start;
  agent.destroy();
  return { wallMs, latencies };
}

const roleChanges = (b: Bench, users: string[], role: string) =>
  concurrently(b.nimbus, users, 'POST', (u) => `/api/user/role?username=${u}&name=${role}`, 201);
/** The control: the same 1,000 connections and requests, reading instead of writing. */
const userReads = (b: Bench, users: string[]) => concurrently(b.nimbus, users, 'GET', (u) => `/api/user?username=${u}`, 200);

function sequentialFsyncs(file: string, count: number): number {
  const block = Buffer.alloc(1024, 0x61);
  const fd = openSync(file, 'w');
  const start = performance.now();
  try {
    for (let i = 0; i < count; i++) {
      writeSync(fd, block, 0, block.length, 0);
      fsyncSync(fd);
    }
    return performance.now() - start;
  } finally {
    closeSync(fd);
  }
}

export async function groupCommitRow(b: Bench): Promise<Row> {
  const users = b.ds.roleUsers;
  const nimbus: { wallMs: number; latencies: number[] }[] = [];
  const baseline: number[] = [];
  const reads: number[] = [];
  // Warm-up (JIT, the store's first flushes); it does not count.
  await userReads(b, users);
  await roleChanges(b, users, 'admin');
  for (let round = 0; round < b.rounds; round++) {
    const role = round % 2 === 0 ? 'user' : 'admin';
    const r = await roleChanges(b, users, role);
    // Every acknowledged change must already be in db.json on disk.
    const db = JSON.parse(readFileSync(path.join(b.ds.dataDir, 'db.json'), 'utf8')) as DbData;
    const changed = new Set(db.users.filter((u) => u.role === role).map((u) => u.username));
    if (!users.every((u) => changed.has(u))) throw new Error('an acknowledged role change is not in db.json');
    nimbus.push(r);
    baseline.push(sequentialFsyncs(path.join(b.root, 'fsync-baseline.bin'), users.length));
    reads.push((await userReads(b, users)).wallMs);
    b.log(
      `  role round ${round + 1}: nimbus ${fmt.ms(r.wallMs)} (p99 ${fmt.ms(percentile(r.latencies, 99))}) | ${users.length} fsyncs ${fmt.ms(baseline.at(-1)!)} | control, ${users.length} concurrent GET /api/user: ${fmt.ms(reads.at(-1)!)}`,
    );
  }
  const wall = median(nimbus.map((r) => r.wallMs));
  const p99 = median(nimbus.map((r) => percentile(r.latencies, 99)));
  const base = median(baseline);
  const speedup = base / wall;
  const n = users.length.toLocaleString('en-US');
  return {
    scenario: `${n} concurrent POST /api/user/role (${b.ds.spec.users.toLocaleString('en-US')} users), durable`,
    nimbus: `${fmt.ms(wall)} for all, p99 ${fmt.ms(p99)}`,
    baseline: `${fmt.ms(base)} (${n} × write+fsync 1 KiB)`,
    ratio: `${fmt.ratio(speedup)} faster`,
    target: '≥ 5 × faster, p99 < 500 ms',
    verdict: verdict(speedup >= 5 && p99 < 500),
    detail:
      `each request on its own connection, all sent at once; wall time to the last 201 ${fmt.list(
        nimbus.map((r) => r.wallMs),
        fmt.ms,
      )}, ` +
      `p99 ${fmt.list(
        nimbus.map((r) => percentile(r.latencies, 99)),
        fmt.ms,
      )}; every change checked in db.json afterwards. ` +
      `Baseline ${fmt.list(baseline, fmt.ms)} (${fmt.ms(base / users.length)} per fsync). ` +
      `Control, same connections reading instead of writing (${users.length} concurrent GET /api/user): ${fmt.list(reads, fmt.ms)} — the part of the wall time that is HTTP and connection handling, not durability.`,
  };
}
