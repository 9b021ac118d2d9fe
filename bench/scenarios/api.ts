/**
 * The API under load, each against bare node:http sending the same bytes — status, headers
 * and JSON body (bench/baselines/bare-http.ts, a child process like the daemon), with plain Koa
 * sending them too (bare-koa.ts) as the framework's floor: GET /api/user, a page of a big
 * listing, and the latency of a full 10,000-file listing.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startChild } from '../lib/child.js';
import { cpuMsOf } from '../lib/machine.js';
import type { Bench } from '../lib/context.js';
import { BIG_USER } from '../lib/dataset.js';
import { load, LOADGEN, type LoadResult } from '../lib/load.js';
import { ROOT, request } from '../lib/nimbus.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';

const CONNECTIONS = 50;

/** A load run, with the server's CPU time (all its threads, from /proc) per request answered, in µs. */
interface Measured extends LoadResult {
  cpuUsPerRequest: number;
}

async function measured(pid: number, options: Parameters<typeof load>[0]): Promise<Measured> {
  const before = cpuMsOf(pid);
  const result = await load(options);
  const cpuMs = cpuMsOf(pid) - before;
  return { ...result, cpuUsPerRequest: (cpuMs * 1000) / Math.max(1, result.reqPerSec * options.seconds) };
}

/** Each server's load runs: Nimbus, bare node:http (the row's baseline) and plain Koa (the framework's floor). */
type Runs = Record<'nimbus' | 'bare' | 'koa', Measured[]>;

/** Load runs in turns on Nimbus, a bare server and plain Koa, the two answering Nimbus's own bytes for `route`. */
async function versusBare(b: Bench, route: string, name: string): Promise<Runs & { bodyBytes: number }> {
  const url = `${b.nimbus.url}${route}`;
  const reply = await request('GET', url, b.nimbus.key);
  if (reply.status !== 200) throw new Error(`GET ${route} answered ${reply.status}`);
  const bodyFile = path.join(b.root, `${name}.json`);
  // Everything Nimbus sent but what node:http adds itself (Date, Connection, Keep-Alive) and
  // what the bare server makes per request (Content-Length, X-Request-Id).
  const added = new Set(['date', 'connection', 'keep-alive', 'content-length', 'x-request-id']);
  const sent: string[] = [];
  for (let i = 0; i < reply.rawHeaders.length; i += 2)
    if (!added.has(reply.rawHeaders[i].toLowerCase())) sent.push(reply.rawHeaders[i], reply.rawHeaders[i + 1]);
  writeFileSync(bodyFile, JSON.stringify({ status: reply.status, headers: sent, body: reply.body.toString('base64') }));
  const bare = await baseline('bare-http.ts', bodyFile);
  const koa = await baseline('bare-koa.ts', bodyFile);
  const headers = { 'API-Key': b.nimbus.key };
  const servers = [
    { name: 'nimbus', pid: b.nimbus.pid, url },
    { name: 'bare', pid: bare.child.pid, url: `http://127.0.0.1:${bare.port}${route}` },
    { name: 'koa', pid: koa.child.pid, url: `http://127.0.0.1:${koa.port}${route}` },
  ] as const;
  try {
    // Warm them up (JIT, connection pools) before anything counts.
    for (const server of servers) await load({ url: server.url, connections: CONNECTIONS, seconds: 2, headers });
    const runs: Runs = { nimbus: [], bare: [], koa: [] };
    for (let round = 0; round < b.rounds; round++) {
      for (const server of servers)
        runs[server.name].push(await measured(server.pid, { url: server.url, connections: CONNECTIONS, seconds: b.seconds, headers }));
      const [x, y, z] = [runs.nimbus.at(-1)!, runs.bare.at(-1)!, runs.koa.at(-1)!];
      b.log(
        `  ${name} round ${round + 1}: nimbus ${fmt.rps(x.reqPerSec)} p99 ${fmt.ms(x.p99)} ${cpuUs(x)} | bare ${fmt.rps(y.reqPerSec)} p99 ${fmt.ms(y.p99)} ${cpuUs(y)} | koa ${fmt.rps(z.reqPerSec)} ${cpuUs(z)}`,
      );
      const failed = servers.filter((server) => {
        const last = runs[server.name].at(-1)!;
        return last.errors + last.non2xx > 0;
      });
      if (failed.length > 0) throw new Error(`${name}: errors or non-2xx answers from ${failed.map((server) => server.name).join(', ')}`);
    }
    return { ...runs, bodyBytes: reply.body.length };
  } finally {
    await Promise.all([bare.child.stop(), koa.child.stop()]);
  }
}

/** A baseline server of bench/baselines, answering with the reply in `bodyFile`. */
async function baseline(file: string, bodyFile: string) {
  const { child, match } = await startChild(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench', 'baselines', file), bodyFile],
    /listening (\d+)/,
    {
      cwd: ROOT,
    },
  );
  return { child, port: match[1] };
}

const cpuUs = (x: Measured) => `${x.cpuUsPerRequest.toFixed(1)} µs CPU`;

function throughputRow(
  scenario: string,
  target: number,
  p99Factor: number | null,
  r: Runs & { bodyBytes: number },
  seconds: number,
  route: string,
): Row {
  const rps = median(r.nimbus.map((x) => x.reqPerSec));
  const bareRps = median(r.bare.map((x) => x.reqPerSec));
  const p99 = median(r.nimbus.map((x) => x.p99));
  const bareP99 = median(r.bare.map((x) => x.p99));
  const ratio = rps / bareRps;
  const p99Ok = p99Factor === null || p99 <= p99Factor * bareP99;
  return {
    scenario,
    nimbus: `${fmt.rps(rps)}, p99 ${fmt.ms(p99)}`,
    baseline: `${fmt.rps(bareRps)}, p99 ${fmt.ms(bareP99)}`,
    ratio: `${fmt.ratio(ratio)} req/s${p99Factor !== null ? `; p99 ${fmt.ratio(p99 / bareP99)}` : ''}`,
    target: `≥ ${target} × req/s${p99Factor !== null ? `, p99 ≤ ${p99Factor} ×` : ''}`,
    verdict: verdict(ratio >= target && p99Ok),
    detail:
      `\`GET ${route}\`, ${CONNECTIONS} connections, ${LOADGEN}, ${seconds} s per run, body ${r.bodyBytes} bytes, the bare server sending the same status, headers and body; ` +
      `Nimbus ${fmt.list(
        r.nimbus.map((x) => x.reqPerSec),
        fmt.rps,
      )} (p99 ${fmt.list(
        r.nimbus.map((x) => x.p99),
        fmt.ms,
      )}); ` +
      `bare ${fmt.list(
        r.bare.map((x) => x.reqPerSec),
        fmt.rps,
      )} (p99 ${fmt.list(
        r.bare.map((x) => x.p99),
        fmt.ms,
      )}). Server CPU a request (all threads): Nimbus ${fmt.list(
        r.nimbus.map((x) => x.cpuUsPerRequest),
        (us) => `${us.toFixed(1)} µs`,
      )}; bare ${fmt.list(
        r.bare.map((x) => x.cpuUsPerRequest),
        (us) => `${us.toFixed(1)} µs`,
      )}. ${koaFloor(r)}`,
  };
}

/**
 * Plain Koa with the same bytes (bare-koa.ts): the part of the gap the framework alone makes on
 * this machine, so a missed ratio says whether Nimbus's own work or Koa's is what costs.
 */
function koaFloor(r: Runs): string {
  const koaRps = median(r.koa.map((x) => x.reqPerSec));
  const cpu = fmt.list(
    r.koa.map((x) => x.cpuUsPerRequest),
    (us) => `${us.toFixed(1)} µs`,
  );
  return (
    `Plain Koa sending the same bytes: ${fmt.list(
      r.koa.map((x) => x.reqPerSec),
      fmt.rps,
    )} (${cpu} CPU), ` +
    `${fmt.ratio(koaRps / median(r.bare.map((x) => x.reqPerSec)))} the bare server; Nimbus ${fmt.ratio(median(r.nimbus.map((x) => x.reqPerSec)) / koaRps)} plain Koa.`
  );
}

export async function userGetRow(b: Bench): Promise<Row> {
  const username = b.ds.roleUsers.at(-1)!;
  const route = `/api/user?username=${username}`;
  const r = await versusBare(b, route, 'user.get');
  return throughputRow(`GET /api/user (${b.ds.spec.users.toLocaleString('en-US')} users)`, 0.6, 2, r, b.seconds, route);
}

export async function filesPageRow(b: Bench): Promise<Row> {
  const offset = Math.floor(b.ds.spec.bigFolderFiles / 2);
  const route = `/api/files/?username=${BIG_USER}&folder=${b.ds.bigFolder}&limit=100&offset=${offset}`;
  const r = await versusBare(b, route, 'files.list');
  return throughputRow(
    `GET /api/files/?limit=100, user with ${b.ds.spec.files.toLocaleString('en-US')} files`,
    0.5,
    null,
    r,
    b.seconds,
    route,
  );
}

/** Sequential full listings of the big folder, timed from request to the last byte. */
export async function fullListingRow(b: Bench): Promise<Row> {
  const route = `/api/folders/files?username=${BIG_USER}&folder=${b.ds.bigFolder}`;
  const url = `${b.nimbus.url}${route}`;
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 33; i++) {
    const start = performance.now();
    const reply = await request('GET', url, b.nimbus.key);
    const ms = performance.now() - start;
    if (reply.status !== 200) throw new Error(`GET ${route} answered ${reply.status}`);
    bytes = reply.body.length;
    if (i >= 3) times.push(ms);
  }
  const files = b.ds.spec.bigFolderFiles.toLocaleString('en-US');
  return {
    scenario: `Full listing of a ${files}-file folder`,
    nimbus: fmt.ms(median(times)),
    baseline: '—',
    ratio: '—',
    target: 'median < 50 ms',
    verdict: verdict(median(times) < 50),
    detail: `\`GET ${route}\` (no limit), ${times.length} sequential requests after 3 warm-ups, request to last byte of ${(bytes / 2 ** 20).toFixed(1)} MiB; p90 ${fmt.ms(percentile(times, 90))}, max ${fmt.ms(Math.max(...times))}.`,
  };
}
