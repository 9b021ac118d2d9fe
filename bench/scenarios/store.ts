/**
 * Durability is nearly free: N concurrent POST /api/user/role on N different users, each
 * answered only once durable, against the control of the same N connections reading instead
 * (N concurrent GET /api/user). Both bursts run on connections opened and warmed before the
 * clock starts, so the difference is what durability costs, not connection set-up. An
 * untimed burst under strace counts the fsyncs a burst costs (group commit).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Bench } from '../lib/context.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import type { DbData } from '../../daemon/store/schema.js';
/** Sends one request per user at once through `agent`; the wall time and each latency. */
function burstThrough(
  agent: http.Agent,
  target: { url: string; key: string },
  users: string[],
  method: string,
  route: (username: string) => string,
  expect: number,
): Promise<{ wallMs: number; latencies: number[] }> {
  const start = performance.now();
  return Promise.all(
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
  ).then((latencies) => ({ wallMs: performance.now() - start, latencies }));
}

/** Fires one request per user, all at once, each on a connection of its own; returns the wall time and each latency. */
export async function concurrently(
  target: { url: string; key: string },
  users: string[],
  method: string,
  route: (username: string) => string,
  expect: number,
): Promise<{ wallMs: number; latencies: number[] }> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  try {
    return await burstThrough(agent, target, users, method, route, expect);
  } finally {
    agent.destroy();
  }
}

/** N keep-alive connections to the daemon, opened once and reused by every burst (counted, so a burst that opened more is caught). */
export class WarmConnections {
  // maxFreeSockets: an agent keeps only 256 idle sockets by default and closes the rest, so a
  // burst of 1,000 would open 744 new connections each time.
  readonly agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: Infinity, keepAliveMsecs: 60_000 });
  opened = 0;

  constructor(readonly target: { url: string; key: string }) {
    const create = this.agent.createConnection.bind(this.agent);
    this.agent.createConnection = ((...args: Parameters<typeof create>) => {
      this.opened++;
      return create(...args);
    }) as typeof create;
  }

  /** One request per user, all at once, on the warm connections; the wall time and each latency. */
  burst(
    users: string[],
    method: string,
    route: (username: string) => string,
    expect: number,
  ): Promise<{ wallMs: number; latencies: number[] }> {
    return burstThrough(this.agent, this.target, users, method, route, expect);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The fsync and fdatasync calls of process `pid` while `during` runs (strace, attached for that time only). */
async function countFsyncs(pid: number, during: () => Promise<unknown>): Promise<number | null> {
  const tracer = spawn('strace', ['-f', '-qq', '-c', '-e', 'trace=fsync,fdatasync', '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let report = '';
  tracer.stderr.on('data', (d: Buffer) => (report += d.toString()));
  const exited = new Promise<number | null>((resolve) => tracer.on('exit', resolve));
  tracer.on('error', () => undefined);
  await new Promise((r) => setTimeout(r, 500)); // attach to every thread before the burst
  try {
    await during();
  } finally {
    await new Promise((r) => setTimeout(r, 200));
    tracer.kill('SIGINT');
  }
  await exited;
  if (!/calls/.test(report)) return null;
  let calls = 0;
  for (const match of report.matchAll(/^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(fsync|fdatasync)\s*$/gm)) calls += Number(match[1]);
  return calls;
}

export async function groupCommitRow(b: Bench): Promise<Row> {
  const users = b.ds.roleUsers;
  const conns = new WarmConnections(b.nimbus);
  const roleChanges = (role: string) => conns.burst(users, 'POST', (u) => `/api/user/role?username=${u}&name=${role}`, 201);
  const reads = () => conns.burst(users, 'GET', (u) => `/api/user?username=${u}`, 200);
  try {
    // Opens the N connections and warms both paths (JIT, the store's first flushes); none of it counts.
    await reads();
    await roleChanges('admin');
    await reads();
    const openedBefore = conns.opened;
    const writes: { wallMs: number; latencies: number[] }[] = [];
    const control: { wallMs: number; latencies: number[] }[] = [];
    for (let round = 0; round < b.rounds; round++) {
      const role = round % 2 === 0 ? 'user' : 'admin';
      // Alternating which goes first, so neither always follows the other's garbage.
      if (round % 2 === 0) {
        writes.push(await roleChanges(role));
        control.push(await reads());
      } else {
        control.push(await reads());
        writes.push(await roleChanges(role));
      }
      // Every acknowledged change must already be in db.json on disk.
      const db = JSON.parse(readFileSync(path.join(b.ds.dataDir, 'db.json'), 'utf8')) as DbData;
      const changed = new Set(db.users.filter((u) => u.role === role).map((u) => u.username));
      if (!users.every((u) => changed.has(u))) throw new Error('an acknowledged role change is not in db.json');
      b.log(
        `  role round ${round + 1}: ${users.length} durable role changes ${fmt.ms(writes.at(-1)!.wallMs)} (p99 ${fmt.ms(percentile(writes.at(-1)!.latencies, 99))}) | ${users.length} reads on the same connections ${fmt.ms(control.at(-1)!.wallMs)}`,
      );
    }
    if (conns.opened !== openedBefore) throw new Error(`the bursts opened ${conns.opened - openedBefore} new connections`);
    const fsyncs = await countFsyncs(b.nimbus.pid, () => roleChanges(b.rounds % 2 === 0 ? 'user' : 'admin')).catch(() => null);
    const wall = median(writes.map((r) => r.wallMs));
    const readWall = median(control.map((r) => r.wallMs));
    const p99 = median(writes.map((r) => percentile(r.latencies, 99)));
    const ratio = wall / readWall;
    const n = users.length.toLocaleString('en-US');
    return {
      scenario: `${n} concurrent POST /api/user/role (${b.ds.spec.users.toLocaleString('en-US')} users), durable, ÷ ${n} reads on the same connections`,
      nimbus: `${fmt.ms(wall)} for all, p99 ${fmt.ms(p99)}`,
      baseline: `${fmt.ms(readWall)} (${n} × GET /api/user)`,
      ratio: fmt.ratio(ratio),
      target: '≤ 1.2 × the reads',
      verdict: verdict(ratio <= 1.2),
      detail:
        `${n} keep-alive connections opened and warmed before the clock (none opened during the bursts); each burst sends one request per connection at once. ` +
        `Durable role changes (each 201 only once db.json is fsynced; every change checked in db.json after its round): ${fmt.list(
          writes.map((r) => r.wallMs),
          fmt.ms,
        )}, p99 ${fmt.list(
          writes.map((r) => percentile(r.latencies, 99)),
          fmt.ms,
        )}. Reads on the same connections: ${fmt.list(
          control.map((r) => r.wallMs),
          fmt.ms,
        )}. ` +
        (fsyncs === null
          ? 'fsyncs per burst: not counted (strace unavailable).'
          : `fsync + fdatasync calls during one more burst of ${n} changes (strace -c, untimed): ${fsyncs} — group commit, against ${n} for a commit per request.`),
    };
  } finally {
    conns.close();
  }
}
