/**
 * HTTP load from a well-kept generator: wrk (C, one thread) by default, autocannon when
 * BENCH_LOADGEN=autocannon or wrk is missing. Both report requests/s and latency
 * percentiles; wrk costs far less CPU per request, which matters on 2 cores where the
 * generator and the server share the machine.
 */
import { execFile } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export interface LoadResult {
  reqPerSec: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
}

const WRK = '/usr/bin/wrk';
export const LOADGEN: 'wrk' | 'autocannon' = process.env.BENCH_LOADGEN === 'autocannon' || !existsSync(WRK) ? 'autocannon' : 'wrk';

export function load(options: LoadOptions): Promise<LoadResult> {
  return LOADGEN === 'wrk' ? runWrk(options) : runAutocannon(options);
}

// wrk's `done` hook prints one JSON line; latencies are in microseconds.
const WRK_REPORT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration":%d,"errors":%d,"non2xx":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
`;

let wrkScript: string | null = null;

function runWrk({ url, connections, seconds, headers = {} }: LoadOptions): Promise<LoadResult> {
  if (!wrkScript) {
    wrkScript = path.join(os.tmpdir(), `nimbus-bench-wrk-${process.pid}.lua`);
    writeFileSync(wrkScript, WRK_REPORT);
    const script = wrkScript;
    process.once('exit', () => rmSync(script, { force: true }));
  }
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', wrkScript];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(WRK, args, { encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`wrk failed: ${stderr || err.message}`));
      const line = stdout.split('\n').find((l) => l.startsWith('WRKJSON '));
      if (!line) return reject(new Error(`wrk printed no report: ${stdout}`));
      const r = JSON.parse(line.slice(8)) as {
        requests: number;
        duration: number;
        errors: number;
        non2xx: number;
        p50: number;
        p99: number;
      };
      resolve({ reqPerSec: r.requests / (r.duration / 1e6), p50: r.p50 / 1000, p99: r.p99 / 1000, errors: r.errors, non2xx: r.non2xx });
    });
  });
}

async function runAutocannon({ url, connections, seconds, headers = {} }: LoadOptions): Promise<LoadResult> {
  const r = await autocannon({ url, connections, duration: seconds, headers });
  return { reqPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}
