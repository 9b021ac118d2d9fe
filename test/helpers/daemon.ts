/** Starts a real daemon on port 0 with a temp data directory, and calls it over real HTTP. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../../daemon/index.js';
import { testBackendFromEnvironment, type TestBackend } from './backend.js';
import { listBucket, readDatabase, writeDatabase } from './state.js';

export const TEST_KEY = 'test-admin-key-0123456789abcdef';

export interface TestDaemon {
  daemon: RunningDaemon;
  url: string;
  port: number;
  key: string;
  dataDir: string;
  storageDir: string;
  logs: string[];
  /** Where this daemon keeps metadata and bytes. */
  backend: TestBackend;
  /** The variables the daemon was started with (NIMBUS_DATABASE_URL, NIMBUS_S3_* outside embedded). */
  env: Record<string, string>;
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
export type { TestBackend };

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
    backend,
    env: { ...(opts.env as Record<string, string>) },
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

/**
 * The stored bytes, the upload temp dir and the metadata: compare two of these to prove nothing
 * changed. Embedded: the storage tree and db.json's text. Outside embedded, the bucket's objects
 * (names and sizes) stand for the tree and the tables' records (db.json's shape) for db.json.
 */
export async function snapshotState(
  t: Pick<TestDaemon, 'dataDir' | 'storageDir'> & Partial<Pick<TestDaemon, 'backend' | 'env'>>,
): Promise<{ tree: string[]; tmp: string[]; db: string }> {
  const env = t.env ?? {};
  return {
    tree: env.NIMBUS_S3_BUCKET ? await listBucket(env) : await listTree(t.storageDir),
    tmp: await listTree(path.join(t.dataDir, 'tmp')),
    db: await readDbText({ dataDir: t.dataDir, env }),
  };
}

/** The metadata as text, to search for what must never be stored (a token, a cookie): db.json's bytes, or the records. */
export async function readDbText(t: Pick<TestDaemon, 'dataDir' | 'env'>): Promise<string> {
  const url = t.env.NIMBUS_DATABASE_URL;
  return url ? JSON.stringify(await readDatabase(url), null, 2) : readFile(path.join(t.dataDir, 'db.json'), 'utf8');
}

/**
 * The metadata as the daemon last wrote it, in db.json's shape: db.json in a data directory (a
 * path, or an embedded daemon), the PostgreSQL tables for a daemon that keeps them there.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect db.json loosely
export async function readDb(source: string | Pick<TestDaemon, 'dataDir' | 'env'>): Promise<any> {
  if (typeof source !== 'string' && source.env.NIMBUS_DATABASE_URL) return readDatabase(source.env.NIMBUS_DATABASE_URL);
  const dataDir = typeof source === 'string' ? source : source.dataDir;
  return JSON.parse(await readFile(path.join(dataDir, 'db.json'), 'utf8'));
}

/**
 * Edits the metadata of a STOPPED daemon (db.json, or the PostgreSQL rows), as an operator or
 * the passing of time would: `edit` changes the records in place (arrays may be replaced).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests edit db.json loosely
export async function editDb(t: Pick<TestDaemon, 'dataDir' | 'env'>, edit: (db: any) => void | Promise<void>): Promise<void> {
  const url = t.env.NIMBUS_DATABASE_URL;
  if (url) {
    const db = await readDatabase(url);
    await edit(db);
    await writeDatabase(url, db);
    return;
  }
  const file = path.join(t.dataDir, 'db.json');
  const db = JSON.parse(await readFile(file, 'utf8'));
  await edit(db);
  await writeFile(file, JSON.stringify(db, null, 2));
}

/**
 * A stored file's bytes: read from the storage folder on an embedded daemon (what is on disk),
 * downloaded through the API elsewhere (the bucket's keys are not the user's paths).
 * `where` is the path under the user's storage: `file` or `folder/file`.
 */
export async function storedBytes(t: TestDaemon, username: string, where: string): Promise<Buffer> {
  if (t.backend === 'embedded') return readFile(path.join(t.storageDir, username, ...where.split('/')));
  const slash = where.lastIndexOf('/');
  const params: Record<string, string> = { username, file: where.slice(slash + 1) };
  if (slash > 0) params.folder = where.slice(0, slash);
  const res = await fetch(`${t.url}/api/files/download?${new URLSearchParams(params)}`, { headers: { 'API-Key': t.key } });
  if (res.status !== 200) throw new Error(`downloading ${username}/${where}: ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

/** What is at the top of a user's storage: the folder's entries on an embedded daemon, the listed files and folders elsewhere. */
export async function storedNames(t: TestDaemon, username: string): Promise<string[]> {
  if (t.backend === 'embedded') return readdir(path.join(t.storageDir, username));
  const files = await t.api('GET', '/api/files', { username });
  const folders = await t.api('GET', '/api/folders', { username });
  if (files.status !== 200 || folders.status !== 200) throw new Error(`listing ${username}: ${files.status} ${folders.status}`);
  return [...files.body.files, ...folders.body.folders].map((entry: { name: string }) => entry.name);
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
