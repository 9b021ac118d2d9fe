/**
 * `nimbus check`: is this installation fit to run? Each line OK, WARN or FAIL; exit 1 on any
 * FAIL. `nimbus check --ready` instead waits for the daemon on the data directory to answer
 * its health check (systemd's ExecStartPost, deploy/nimbus.service: readiness without sd_notify).
 */
import path from 'node:path';
import { assertSharedAdminKey, backendMode } from '../backends.js';
import { redactUrl, type ConfigInput, type DaemonConfig } from '../config.js';
import { readRunFile } from '../run-file.js';
import { CommandError, configFor, say, type Command } from './common.js';
import { checkDisk, checkInotify, checkPrivateDir, checkSecretFile, checkStore, line, type CheckLine } from './check-probes.js';

const HELP = `Usage:
  nimbus check [--data-dir DIR] [--storage-dir DIR] [NIMBUS_* variables as the daemon gets them]
  nimbus check --ready [--timeout SECONDS] [--pid PID]

Checks, each on a line marked OK, WARN or FAIL, and exits 1 when any FAILs:
  the configuration (flags and NIMBUS_* variables parse, values in range), the Node.js version,
  the data and storage directories (owned by this user, not writable by others; 0700 expected),
  db.json and admin.key (not readable by others), db.json parses, free disk space, the inotify
  watch limit against the number of folders, PostgreSQL (NIMBUS_DATABASE_URL) reachable, the
  S3 bucket reachable, and the daemon running on the data directory (its health).
Run it as the daemon's user, with the daemon's environment (docs/operations.md shows how for systemd).

--ready waits (default 60 s) until the daemon on the data directory answers GET /api/health
with 200, then exits 0; 1 on the timeout. With --pid, only the daemon of that pid counts. The
systemd units run it as ExecStartPost (\`--pid $MAINPID\`): Node cannot send sd_notify's datagram.
`;

const PROBE_TIMEOUT_MS = 5000;

export const checkCommand: Command = {
  help: HELP,
  options: { ready: { type: 'boolean' }, timeout: { type: 'string' }, pid: { type: 'string' } },
  async run(args, values, input) {
    if (args.length > 0) throw new CommandError(`unexpected argument "${args[0]}"`);
    if (values.ready) {
      const pid = values.pid === undefined ? null : wholeNumber(String(values.pid), '--pid');
      return waitReady(input, values.timeout === undefined ? 60 : wholeNumber(String(values.timeout), '--timeout'), pid);
    }
    if (values.timeout !== undefined || values.pid !== undefined) throw new CommandError('--timeout and --pid go with --ready');
    const lines: CheckLine[] = [];
    const print = (found: CheckLine | null) => {
      if (!found) return;
      lines.push(found);
      say(`${found.level.padEnd(4)}  ${found.what.padEnd(13)} ${found.detail}`);
    };
    let config: DaemonConfig;
    try {
      config = configFor(input);
      assertSharedAdminKey(config);
    } catch (err) {
      print(line('FAIL', 'configuration', (err as Error).message));
      return 1;
    }
    const mode = backendMode(config);
    print(
      line(
        'OK',
        'configuration',
        `parses; ${mode} mode${config.databaseUrl ? `, database ${redactUrl(config.databaseUrl)}` : ''}${config.s3 ? `, bucket ${config.s3.bucket} at ${config.s3.endpoint}` : ''}`,
      ),
    );
    print(nodeVersion());
    print(await checkPrivateDir('data dir', config.dataDir));
    if (!config.s3 && path.relative(config.dataDir, config.storageDir).startsWith('..'))
      print(await checkPrivateDir('storage dir', config.storageDir));
    if (!config.databaseUrl) {
      print(await checkSecretFile('db.json', path.join(config.dataDir, 'db.json')));
      print(await checkStore(config));
    }
    print(await checkSecretFile('admin.key', path.join(config.dataDir, 'admin.key')));
    print(await checkDisk('disk', config.dataDir));
    if (!config.s3) {
      if (path.relative(config.dataDir, config.storageDir).startsWith('..')) print(await checkDisk('storage disk', config.storageDir));
      print(await checkInotify(config.storageDir));
    }
    if (config.databaseUrl) print(await checkDatabase(config.databaseUrl));
    if (config.s3) print(await checkBucket(config));
    print(await checkDaemon(config));
    const failed = lines.filter((l) => l.level === 'FAIL').length;
    const warned = lines.filter((l) => l.level === 'WARN').length;
    say(failed > 0 ? `${failed} FAIL, ${warned} WARN` : warned > 0 ? `No FAIL, ${warned} WARN` : 'All OK');
    return failed > 0 ? 1 : 0;
  },
};

function wholeNumber(text: string, flag: string): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) === 0) throw new CommandError(`invalid ${flag}: ${text} (a whole number, at least 1)`);
  return Number(text);
}

function nodeVersion(): CheckLine {
  const [major, minor] = process.versions.node.split('.').map(Number);
  const ok = major > 22 || (major === 22 && minor >= 13);
  return line(ok ? 'OK' : 'WARN', 'node', `Node.js ${process.versions.node}${ok ? '' : ' (22.13 or later is supported)'}`);
}

async function checkDatabase(url: string): Promise<CheckLine> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ version: string }>('SELECT version()');
    return line('OK', 'database', `${redactUrl(url)} answers (${rows[0].version.split(' ').slice(0, 2).join(' ')})`);
  } catch (err) {
    return line('FAIL', 'database', `${redactUrl(url)}: ${describe(err)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkBucket(config: DaemonConfig): Promise<CheckLine> {
  const { S3ObjectStore } = await import('../storage/objects/s3-store.js');
  const s3 = config.s3!;
  const store = new S3ObjectStore({ ...s3, timeouts: { connectMs: PROBE_TIMEOUT_MS, idleMs: PROBE_TIMEOUT_MS } });
  try {
    await store.check();
    return line('OK', 'bucket', `${s3.bucket} at ${s3.endpoint} answers`);
  } catch (err) {
    return line('FAIL', 'bucket', `${s3.bucket} at ${s3.endpoint}: ${describe(err)}`);
  } finally {
    store.close();
  }
}

/** A daemon on the data directory: its health; none running is fine (a check before the first start). */
async function checkDaemon(config: DaemonConfig): Promise<CheckLine> {
  const running = await readRunFile(config.dataDir);
  if (!running) return line('OK', 'daemon', 'none running on this data directory');
  try {
    const res = await fetch(`${running.url}/api/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = await res.text();
    return line(
      res.status === 200 ? 'OK' : 'FAIL',
      'daemon',
      `pid ${running.pid} at ${running.url}: health ${res.status} ${body.slice(0, 200)}`,
    );
  } catch (err) {
    return line('FAIL', 'daemon', `pid ${running.pid} at ${running.url} does not answer: ${describe(err)}`);
  }
}

const describe = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException & { errors?: Error[]; cause?: { code?: string } };
  return e.code ?? e.cause?.code ?? (e.message || e.errors?.[0]?.message || e.name || String(err));
};

/**
 * Polls until the daemon that wrote daemon.json answers its health check with 200. With `pid`
 * (systemd's $MAINPID) only that daemon counts: a run file a crashed start left behind does not.
 */
async function waitReady(input: ConfigInput, timeoutS: number, pid: number | null): Promise<number> {
  const config = configFor(input);
  const deadline = Date.now() + timeoutS * 1000;
  let last = 'no daemon.json yet';
  while (Date.now() < deadline) {
    const running = await readRunFile(config.dataDir);
    if (running && pid !== null && running.pid !== pid) last = `daemon.json names pid ${running.pid}, not ${pid}`;
    else if (running) {
      try {
        const res = await fetch(`${running.url}/api/health`, { signal: AbortSignal.timeout(2000) });
        if (res.status === 200) {
          say(`Nimbus ready: pid ${running.pid} at ${running.url}`);
          return 0;
        }
        last = `health ${res.status}`;
      } catch (err) {
        last = describe(err);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new CommandError(`the daemon on ${config.dataDir} was not ready within ${timeoutS} s (${last})`);
}
