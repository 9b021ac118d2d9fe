/**
 * How `nimbus user …` and `nimbus role …` reach the accounts: through the API with the admin
 * key, always. When a daemon runs on the data directory (its run file, daemon.json) the
 * calls go to it, so its caches, event streams and quota ledger see the change at once.
 * When none runs, the command starts one in this process on 127.0.0.1 (a free port, its
 * lock held) for the few calls and stops it: the same handlers and services decide (names
 * checked, the password policy, hashing the daemon's way, the user's storage folder made or
 * removed), and no second copy of those rules can drift from the daemon's.
 */
import type { ConfigInput } from '../config.js';
import { startDaemon } from '../daemon.js';
import type { RunningDaemon } from '../daemon-types.js';
import { loadAdminKey } from '../keys/admin-key.js';
import { readRunFile } from '../run-file.js';
import { CommandError, configFor, lockHolder, warn } from './common.js';

export type Params = Record<string, string>;

export interface AdminApi {
  /** The daemon answering: `running` (pid) or `in-process` (stopped by close()). */
  via: string;
  url: string;
  get<T>(path: string, params?: Params): Promise<T>;
  /** Parameters go in a JSON body, never the query string: a password must not reach a URL or an access log. */
  post<T>(path: string, params: Params): Promise<T>;
  close(): Promise<void>;
}

/** The API's refusal of a call: its status, code and message (`{error, code}`). */
export class ApiRefusal extends CommandError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** How long a lock without an address is waited on: a daemon starting, or another `nimbus user …` at work. */
const LOCK_WAIT_MS = 10_000;

export async function openAdminApi(input: ConfigInput): Promise<AdminApi> {
  const config = configFor(input);
  let running = await readRunFile(config.dataDir);
  for (const until = Date.now() + LOCK_WAIT_MS; !running && Date.now() < until;) {
    const holder = await lockHolder(config.dataDir);
    if (holder === null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
    running = await readRunFile(config.dataDir);
    if (!running && Date.now() >= until)
      throw new CommandError(
        `a process (pid ${holder}) holds ${config.dataDir} and left no address: another nimbus command at work, or an older daemon; try again, or restart it.`,
      );
  }
  if (running) {
    const { key } = await loadAdminKey(config, warn, { moveKeyFile: false });
    return client(running.url, key, `the daemon running on ${config.dataDir} (pid ${running.pid})`, async () => undefined);
  }
  let daemon: RunningDaemon;
  try {
    // Never the configured address: NIMBUS_HOST may be 0.0.0.0 and NIMBUS_PORT in use by now.
    daemon = await startDaemon({ ...input, host: '127.0.0.1', port: 0, log: warn });
  } catch (err) {
    throw new CommandError(`cannot open ${config.dataDir}: ${(err as Error).message}`);
  }
  return client(daemon.url, daemon.adminKey(), `the store of ${config.dataDir} (no daemon was running)`, () => daemon.close());
}

function client(url: string, key: string, via: string, close: () => Promise<void>): AdminApi {
  const call = async <T>(method: 'GET' | 'POST', path: string, params: Params): Promise<T> => {
    const query = method === 'GET' && Object.keys(params).length > 0 ? `?${new URLSearchParams(params)}` : '';
    let res: Response;
    try {
      res = await fetch(`${url}${path}${query}`, {
        method,
        headers: { 'API-Key': key, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
        body: method === 'POST' ? JSON.stringify(params) : undefined,
      });
    } catch (err) {
      throw new CommandError(`${via} did not answer at ${url} (${(err as Error).message}); nothing was changed.`);
    }
    const body = (await res.json().catch(() => null)) as (T & { error?: string; code?: string }) | null;
    if (!res.ok) throw new ApiRefusal(res.status, body?.code ?? 'unknown', body?.error ?? `HTTP ${res.status}`);
    return body as T;
  };
  return {
    via,
    url,
    get: (path, params = {}) => call('GET', path, params),
    post: (path, params) => call('POST', path, params),
    close,
  };
}

/** Runs `work` against the API and always lets go of it (stops the daemon this process started). */
export async function withAdminApi<T>(input: ConfigInput, work: (api: AdminApi) => Promise<T>): Promise<T> {
  const api = await openAdminApi(input);
  try {
    return await work(api);
  } finally {
    await api.close();
  }
}
