/** Starts a real daemon on port 0 with a temp data directory, and calls it over real HTTP. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../../daemon/index.js';

export const TEST_KEY = 'test-admin-key-0123456789abcdef';

export interface TestDaemon {
  daemon: RunningDaemon;
  url: string;
  key: string;
  dataDir: string;
  storageDir: string;
  logs: string[];
  /** Calls the API with the admin key; params go in the query string. */
  api(method: 'GET' | 'POST', route: string, params?: Record<string, string>, init?: RequestInit & { key?: string | null }): Promise<ApiResponse>;
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

export async function startTestDaemon(options: DaemonOptions = {}): Promise<TestDaemon> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'nimbus-test-')));
  const logs: string[] = [];
  const opts: DaemonOptions = { port: 0, apiKey: TEST_KEY, env: {}, log: (line) => logs.push(line), ...options, dataDir };
  let daemon = await startDaemon(opts);
  const t: TestDaemon = {
    daemon,
    get url() {
      return daemon.url;
    },
    key: opts.apiKey ?? TEST_KEY,
    dataDir,
    storageDir: daemon.storageDir,
    logs,
    async api(method, route, params = {}, init = {}) {
      const query = new URLSearchParams(params).toString();
      const headers = new Headers(init.headers);
      const key = init.key === undefined ? t.key : init.key;
      if (key !== null) headers.set('API-Key', key);
      const res = await fetch(`${daemon.url}${route}${query ? `?${query}` : ''}`, { ...init, method, headers });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, headers: res.headers, body, text };
    },
    async stop() {
      await daemon.close();
    },
    async restart() {
      daemon = await startDaemon(opts);
      t.daemon = daemon;
    },
    async close() {
      await daemon.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}
