/** Starts a real daemon on port 0 with a temp data directory, and calls it over real HTTP. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../../daemon/index.js';

export const TEST_KEY = 'test-admin-key-0123456789abcdef';

export interface TestDaemon {
  daemon: RunningDaemon;
  url: string;
  port: number;
  key: string;
  dataDir: string;
  storageDir: string;
  logs: string[];
  /** Calls the API with the admin key; params go in the query string. */
  api(method: string, route: string, params?: Record<string, string>, init?: RequestInit & { key?: string | null }): Promise<ApiResponse>;
  /** Calls a path with its query string exactly as given (odd forms such as `a=1&&b=2`). */
  raw(method: string, pathAndQuery: string, init?: RequestInit & { key?: string | null }): Promise<ApiResponse>;
  /** Stops the daemon (keeping the data directory, for a restart). */
  stop(): Promise<void>;
  /** Starts a new daemon on the same data directory. */
  restart(): Promise<void>;
  /** Stops the daemon and removes its directories. */
  close(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
  text: string;
}

/**
 * Where a test daemon keeps its metadata and bytes (docs/cluster.md, "Modes"): embedded (db.json
 * and the storage folder), postgres (a fresh database), object (a fresh bucket), cluster (both),
 * on the run's shared engines (test/helpers/engines.ts).
 */
export type TestBackend = 'embedded' | 'postgres' | 'object' | 'cluster';

export interface TestDaemonOptions extends DaemonOptions {
  /** Default: NIMBUS_TEST_BACKEND, else embedded. */
  backend?: TestBackend;
}

const BACKEND_ENGINES: Record<Exclude<TestBackend, 'embedded'>, { database?: boolean; s3?: boolean }> = {
  postgres: { database: true },
  object: { s3: true },
  cluster: { database: true, s3: true },
};

export async function startTestDaemon(testOptions: TestDaemonOptions = {}): Promise<TestDaemon> {
  const { backend = testBackendFromEnvironment(), ...options } = testOptions;
  if (backend !== 'embedded') {
    // Imported only here: an embedded run does not load the database and S3 clients.
    const { clusterEnv } = await import('./engines.js');
    // Variables the test gives win over the fresh database and bucket.
    options.env = { ...(await clusterEnv(BACKEND_ENGINES[backend])), ...options.env };
  }
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'nimbus-test-')));
  const logs: string[] = [];
  const opts: DaemonOptions = { port: 0, apiKey: TEST_KEY, env: {}, log: (line) => logs.push(line), ...options, dataDir };
  let daemon = await startDaemon(opts);
  let stopped = false;
  const call = async (method: string, url: string, init: RequestInit & { key?: string | null }): Promise<ApiResponse> => {
    const headers = new Headers(init.headers);
    const key = init.key === undefined ? t.key : init.key;
    if (key !== null) headers.set('API-Key', key);
    const { key: _unused, ...rest } = init;
    const res = await fetch(url, { ...rest, method, headers });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body, text };
  };
  const t: TestDaemon = {
    daemon,
    get url() {
      return daemon.url;
    },
    get port() {
      return daemon.port;
    },
    key: daemon.adminKey(),
    dataDir,
    storageDir: daemon.storageDir,
    logs,
    api(method, route, params = {}, init = {}) {
      const query = new URLSearchParams(params).toString();
      return call(method, `${daemon.url}${route}${query ? `?${query}` : ''}`, init);
    },
    raw(method, pathAndQuery, init = {}) {
      return call(method, `${daemon.url}${pathAndQuery}`, init);
    },
    async stop() {
      stopped = true;
      await daemon.close();
    },
    async restart() {
      daemon = await startDaemon(opts);
      stopped = false;
      t.daemon = daemon;
    },
    async close() {
      if (!stopped) await daemon.close();
      stopped = true;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

function testBackendFromEnvironment(): TestBackend {
  const value = process.env.NIMBUS_TEST_BACKEND ?? 'embedded';
  if (value === 'embedded' || Object.hasOwn(BACKEND_ENGINES, value)) return value as TestBackend;
  throw new Error(`NIMBUS_TEST_BACKEND=${value}: expected embedded, postgres, object or cluster`);
}

export interface NodeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * One request through node:http, so the Host header (which fetch will not let a caller
 * set) is exactly what the test says.
 */
export function nodeRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; localAddress?: string },
): Promise<NodeResponse> {
  return new Promise((resolve, reject) => {
    const { method = 'GET', path: reqPath, headers, localAddress } = options;
    const req = http.request({ host: '127.0.0.1', port, method, path: reqPath, headers, localAddress, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Every path under a directory (recursively, sorted), with file sizes: a picture of the disk. */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string) => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out.push(`${r}/`);
        await walk(path.join(d, e.name), r);
      } else out.push(r);
    }
  };
  await walk(dir, '');
  return out.sort();
}

/** The storage tree, the upload temp dir and db.json's bytes: compare two of these to prove nothing changed. */
export async function snapshotState(t: Pick<TestDaemon, 'dataDir' | 'storageDir'>): Promise<{ tree: string[]; tmp: string[]; db: string }> {
  return {
    tree: await listTree(t.storageDir),
    tmp: await listTree(path.join(t.dataDir, 'tmp')),
    db: await readFile(path.join(t.dataDir, 'db.json'), 'utf8'),
  };
}

/** Reads db.json as the daemon last wrote it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect db.json loosely
export async function readDb(dataDir: string): Promise<any> {
  return JSON.parse(await readFile(path.join(dataDir, 'db.json'), 'utf8'));
}

/** A user (with default password) made through the API; throws unless it was created. */
export async function createUser(
  t: TestDaemon,
  username: string,
  email = `${username}@example.com`,
  password = 'password123',
): Promise<ApiResponse> {
  const res = await t.api('POST', '/api/user/create', { username, email, password });
  if (res.status !== 201) throw new Error(`creating ${username}: ${res.status} ${res.text}`);
  return res;
}

/** Uploads bytes as a file; throws unless it was stored. */
export async function upload(
  t: TestDaemon,
  username: string,
  file: string,
  content: string | Buffer,
  extra: Record<string, string> = {},
): Promise<ApiResponse> {
  const res = await t.api(
    'POST',
    '/api/files/upload',
    { username, file, ...extra },
    { body: typeof content === 'string' ? content : new Uint8Array(content) },
  );
  if (res.status !== 201) throw new Error(`uploading ${file}: ${res.status} ${res.text}`);
  return res;
}
