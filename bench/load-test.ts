/**
 * `npm run bench:load`: 200 concurrent clients for 60 s on loopback, each cycling through
 * reads, mutations, an upload and a download, while another loop churns files in the
 * storage directory. Then: no 5xx, no lost update (every acknowledged user exists), no
 * leaked file descriptor or temp file, memory back near where it started.
 * BENCH_LOAD_SECONDS and BENCH_LOAD_CLIENTS shorten it.
 */
import { mkdir, mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { api, pollUntil, startNimbus } from './lib/nimbus.js';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const CLIENTS = Number(process.env.BENCH_LOAD_CLIENTS ?? 200);
const KEY = 'load-test-key-0123456789abcdefghij';
const USERS = 20;

// autocannon's request sequences (hooks per request) and status counts; bench/lib/autocannon.d.ts
// declares only the options the main bench uses.
interface LoadRequest {
  method?: string;
  path?: string;
  body?: Buffer;
  setupRequest?: (req: LoadRequest) => LoadRequest;
  onResponse?: (status: number, body: string) => void;
}
interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}
type RunLoad = (options: {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  headers: Record<string, string>;
  requests: LoadRequest[];
}) => Promise<LoadResult>;
const runLoad = autocannon as unknown as RunLoad;

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-load-'));
  const nimbus = await startNimbus(dataDir, KEY);
  const n = { url: nimbus.url, key: KEY };
  try {
    await api(n, 'POST', '/api/role/create', { name: 'roomy', maxStorage: '-1', badge: 'https://example.com/r.png' });
    for (let i = 0; i < USERS; i++) {
      await api(n, 'POST', '/api/user/create', { username: `load${i}`, email: `load${i}@example.com`, password: 'password1' });
      await api(n, 'POST', '/api/user/role', { username: `load${i}`, name: 'roomy' });
      await api(n, 'POST', '/api/files/upload', { username: `load${i}`, file: 'seed.bin' }).catch(() => undefined);
    }
    for (let i = 0; i < USERS; i++) {
      await fetch(`${n.url}/api/files/upload?username=load${i}&file=seed.bin&overwrite=true`, {
        method: 'POST',
        headers: { 'API-Key': KEY },
        body: Buffer.alloc(64 * 1024, 1),
      });
    }
    await pollUntil(
      async () => ((await api<{ index: { state: string } }>(n, 'GET', '/api/dash')).index.state === 'ready' ? true : undefined),
      30_000,
    );
    await new Promise((r) => setTimeout(r, 1000));
    const before = { rss: rssMiB(nimbus.pid), fds: openFds(nimbus.pid) };

    // Churn: another program adds, rewrites and deletes files in the users' directories.
    let churning = true;
    let churned = 0;
    const churn = (async () => {
      while (churning) {
        const dir = path.join(dataDir, 'storage', `load${churned % USERS}`);
        const file = path.join(dir, `churn-${churned % 50}.txt`);
        await mkdir(dir, { recursive: true });
        if (churned % 3 === 2) await unlink(file).catch(() => undefined);
        else await writeFile(file, `churn ${churned}\n`.repeat(1 + (churned % 100)));
        churned++;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    const acknowledged: string[] = [];
    let created = 0;
    const upload = Buffer.alloc(32 * 1024, 7);
    const result = await runLoad({
      url: n.url,
      connections: CLIENTS,
      duration: SECONDS,
      timeout: 30,
      headers: { 'API-Key': KEY },
      requests: [
        { method: 'GET', path: '/api/user?username=load1' },
        { method: 'GET', path: '/api/files?username=load2&limit=100' },
        {
          method: 'POST',
          setupRequest: (req: LoadRequest) => ({
            ...req,
            path: `/api/user/create?username=c${created++}&email=c@example.com&password=password1`,
          }),
          onResponse: (status: number, body: string) => {
            if (status === 201) acknowledged.push((JSON.parse(body) as { user: { username: string } }).user.username);
          },
        },
        {
          method: 'POST',
          setupRequest: (req: LoadRequest) => ({
            ...req,
            path: `/api/files/upload?username=load${created % USERS}&file=up-${created % 40}.bin&overwrite=true`,
            body: upload,
          }),
        },
        { method: 'GET', path: '/api/files/download?username=load3&file=seed.bin' },
        {
          method: 'POST',
          setupRequest: (req: LoadRequest) => ({ ...req, path: `/api/user/role?username=load${created % USERS}&name=roomy` }),
        },
        { method: 'GET', path: '/api/dash' },
      ],
    });
    churning = false;
    await churn;

    const statuses = result.statusCodeStats ?? {};
    const fiveXX = Object.entries(statuses)
      .filter(([code]) => code.startsWith('5'))
      .reduce((sum, [, s]) => sum + s.count, 0);
    const users = await api<{ username: string }[]>(n, 'GET', '/api/user/all');
    const present = new Set(users.map((u) => u.username));
    const lost = acknowledged.filter((u) => !present.has(u));
    await new Promise((r) => setTimeout(r, 5000));
    const after = { rss: rssMiB(nimbus.pid), fds: openFds(nimbus.pid) };
    const temps = await readdir(path.join(dataDir, 'tmp')).catch(() => []);

    const lines = [
      `Load: ${CLIENTS} clients × ${SECONDS} s, mixed reads, user creations, role changes, 32 KiB uploads, 64 KiB downloads; ${churned} external file changes meanwhile.`,
      `requests: ${result.requests.average.toFixed(0)} req/s average; latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; errors ${result.errors}, timeouts ${result.timeouts}`,
      `status codes: ${Object.entries(statuses)
        .map(([c, s]) => `${c}×${s.count}`)
        .join(', ')}`,
      `5xx: ${fiveXX}; acknowledged user creations: ${acknowledged.length}, lost: ${lost.length}`,
      `file descriptors: ${before.fds} before, ${after.fds} after; temp files left: ${temps.length}`,
      `RSS: ${before.rss.toFixed(0)} MiB before, ${after.rss.toFixed(0)} MiB 5 s after the run`,
    ];
    console.log(lines.join('\n'));
    const ok = fiveXX === 0 && lost.length === 0 && temps.length === 0 && after.fds <= before.fds + 5 && result.errors === 0;
    console.log(ok ? 'PASS' : 'FAIL');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await nimbus.child.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
