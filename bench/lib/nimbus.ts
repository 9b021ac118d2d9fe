/** Runs the Nimbus daemon as a child process (so its RSS can be read) and calls its API. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, type Child } from './child.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface NimbusProcess {
  child: Child;
  pid: number;
  url: string;
  key: string;
  /** ms from spawn to the "listening" line. */
  listeningMs: number;
  spawnedAt: number;
}

export interface NimbusOptions {
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
}

/** Whether dist/ holds a build at least as new as every daemon and shared source file. */
function distIsFresh(): boolean {
  const stale = (dir: string): boolean =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).some((e) => {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) return stale(rel);
      if (!e.name.endsWith('.ts')) return false;
      const js = path.join(ROOT, 'dist', rel.replace(/\.ts$/, '.js'));
      return !existsSync(js) || statSync(js).mtimeMs < statSync(path.join(ROOT, rel)).mtimeMs;
    });
  return !stale('daemon') && !stale('shared');
}

/** How the daemon is started: the compiled CLI when dist/ is current, else the same CLI from source through tsx. */
export const DAEMON_COMMAND: string[] = distIsFresh()
  ? [path.join(ROOT, 'bin', 'nimbus.js')]
  : ['--import', 'tsx', path.join(ROOT, 'bench', 'lib', 'daemon-entry.ts')];
export const DAEMON_RUNTIME = distIsFresh()
  ? 'node bin/nimbus.js daemon (compiled dist/)'
  : 'daemon/cli.ts through tsx (dist/ missing or older than the source)';

/** `nimbus daemon --port 0 --data-dir <dir>`, as an operator would run it. */
export async function startNimbus(dataDir: string, key: string, options: NimbusOptions = {}): Promise<NimbusProcess> {
  const spawnedAt = performance.now();
  const { child, match } = await startChild(
    process.execPath,
    [...(options.nodeArgs ?? []), ...DAEMON_COMMAND, 'daemon', '--port', '0', '--data-dir', dataDir],
    /Nimbus daemon listening on (http:\/\/\S+)/,
    { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', NIMBUS_API_KEY: key, NIMBUS_KEYCHAIN: 'off' } },
  );
  return { child, pid: child.pid, url: match[1], key, listeningMs: performance.now() - spawnedAt, spawnedAt };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

export interface Reply {
  status: number;
  body: Buffer;
  headers: http.IncomingHttpHeaders;
  /** The headers as sent: name, value, name, value… */
  rawHeaders: string[];
}

/** One request with the API key; resolves with the whole body. */
export function request(method: string, url: string, key: string | null, extraHeaders: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...extraHeaders };
    if (key) headers['API-Key'] = key;
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers, rawHeaders: res.rawHeaders }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Calls the API and parses the JSON answer; throws on a status other than `expect`. */
export async function api<T = unknown>(
  n: { url: string; key: string },
  method: string,
  route: string,
  params: Record<string, string> = {},
  expect = method === 'GET' ? 200 : 201,
): Promise<T> {
  const query = new URLSearchParams(params).toString();
  const reply = await request(method, `${n.url}${route}${query ? `?${query}` : ''}`, n.key);
  if (reply.status !== expect) throw new Error(`${method} ${route} answered ${reply.status}: ${reply.body.toString().slice(0, 300)}`);
  return JSON.parse(reply.body.toString()) as T;
}

/** Polls until `check` returns a value (not undefined), every `everyMs`; throws after `timeoutMs`. */
export async function pollUntil<T>(check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 10): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
