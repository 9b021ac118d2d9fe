/**
 * One configuration table (daemon/config-table.ts) behind the resolver, `nimbus --help` and
 * the README's configuration table: a variable one of them leaves out, or a README table
 * that differs from the one the table renders, fails here.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeTables, README_TABLE_END, README_TABLE_START, settingsHelp } from '../../daemon/config-docs.js';
import { SETTINGS, type Setting } from '../../daemon/config-table.js';
import { resolveConfig, type ConfigInput } from '../../daemon/config.js';
import { ROOT, runCli } from '../helpers/child.js';

/**
 * NIMBUS_* names in daemon/ that are not settings of a daemon: a test-only switch, and the
 * process-wide switches the bench's A/B runs use: back to /proc paths (storage/at-calls.ts),
 * to @parcel/watcher on Linux (storage/live/inotify-calls.ts), malloc left untuned
 * (util/malloc-tuning.ts) and V8's own heap growth (util/heap-growth.ts).
 */
const NOT_SETTINGS = new Set(['NIMBUS_FAILPOINTS', 'NIMBUS_AT_CALLS', 'NIMBUS_WATCHER', 'NIMBUS_MALLOC_TUNING', 'NIMBUS_HEAP_GROWTH']);

/** Every NIMBUS_* name the daemon's sources mention (read, or named in a message). */
async function variablesNamedInDaemon(): Promise<string[]> {
  const names = new Set<string>();
  const dir = path.join(ROOT, 'daemon');
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const source = await readFile(path.join(entry.parentPath, entry.name), 'utf8');
    for (const [name] of source.matchAll(/\bNIMBUS_[A-Z0-9_]*[A-Z0-9]\b/g)) if (!NOT_SETTINGS.has(name)) names.add(name);
  }
  return [...names].sort();
}

/** The README's "Configuration" section, up to the next heading. */
async function readmeConfiguration(): Promise<string> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Configuration\n');
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
}

describe('the NIMBUS_* variables', () => {
  it('are each named by nimbus --help and by the README’s configuration table', async () => {
    const run = runCli(['--help']);
    expect(await run.exited).toBe(0);
    const help = run.stdout();
    const readme = await readmeConfiguration();
    const names = await variablesNamedInDaemon();
    expect(names.length).toBeGreaterThanOrEqual(30);
    expect(names.filter((name) => !help.includes(name))).toEqual([]);
    expect(names.filter((name) => !readme.includes(`\`${name}`))).toEqual([]);
  });
});

describe('the configuration table', () => {
  const rows = SETTINGS as Setting[];

  it('is what the README holds between its markers (npm run readme:config rewrites it)', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf(README_TABLE_START);
    const end = readme.indexOf(README_TABLE_END);
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    // Cell by cell: Prettier may pad a table differently, and that is no drift.
    const cells = (markdown: string) => markdown.split('\n').map((line) => line.split('|').map((cell) => cell.trim()));
    expect(cells(readme.slice(start, end + README_TABLE_END.length))).toEqual(cells(readmeTables()));
  });

  it('is what nimbus --help prints: every row, with its flag and default', async () => {
    const run = runCli(['--help']);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain(settingsHelp());
    for (const row of rows) {
      expect(run.stdout()).toContain(row.env);
      if (row.flag) expect(run.stdout()).toContain(row.flag);
    }
  });

  it('names each variable once', () => {
    const names = rows.map((row) => row.env);
    expect(new Set(names).size).toBe(names.length);
  });

  it('has every variable the daemon names, and none it does not', async () => {
    expect(rows.map((row) => row.env).sort()).toEqual(await variablesNamedInDaemon());
  });

  it('is what the resolver reads: each row’s variable, set, is refused by name or changes the config', () => {
    const defaults = resolveConfig({}, {}, '');
    // With an endpoint, so that the S3 parts are read at all.
    const s3 = {
      NIMBUS_S3_ENDPOINT: 'http://127.0.0.1:9000',
      NIMBUS_S3_BUCKET: 'nimbus',
      NIMBUS_S3_ACCESS_KEY_ID: 'id',
      NIMBUS_S3_SECRET_ACCESS_KEY: 'secret',
    };
    const withS3 = resolveConfig({}, s3, '');
    for (const row of rows) {
      const base = row.env.startsWith('NIMBUS_S3_') ? s3 : {};
      const before = row.env.startsWith('NIMBUS_S3_') ? withS3 : defaults;
      // A value no parser takes, and two that some take (NIMBUS_KEYCHAIN reads only `off`).
      const read = ['-1x', 'off', '0'].some((value) => {
        try {
          return JSON.stringify(resolveConfig({}, { ...base, [row.env]: value }, '')) !== JSON.stringify(before);
        } catch (err) {
          // A port is "Invalid port: …" whether it came by flag or variable, as it always was.
          expect((err as Error).message, row.env).toMatch(row.env === 'NIMBUS_PORT' ? /^Invalid port: / : row.env);
          return true;
        }
      });
      expect(read, row.env).toBe(true);
    }
  });

  it('lets every option (a flag, or DaemonOptions) win over its variable', () => {
    // Required: an option added to ConfigInput without a row here fails to compile.
    const options: Required<ConfigInput> = {
      host: '0.0.0.0',
      port: 1234,
      dataDir: '/tmp/nimbus-option-data',
      storageDir: '/tmp/nimbus-option-storage',
      apiKey: 'k'.repeat(32),
      logLevel: 'warn',
      databaseUrl: 'postgres://db.example/nimbus',
      s3Endpoint: 'http://127.0.0.1:9000',
    };
    const env = {
      NIMBUS_HOST: '10.0.0.1',
      NIMBUS_PORT: '80',
      NIMBUS_DATA_DIR: '/tmp/nimbus-env-data',
      NIMBUS_STORAGE_DIR: '/tmp/nimbus-env-storage',
      NIMBUS_API_KEY: 'e'.repeat(32),
      NIMBUS_LOG_LEVEL: 'debug',
      NIMBUS_DATABASE_URL: 'postgres://other.example/nimbus',
      NIMBUS_S3_ENDPOINT: 'http://127.0.0.1:9999',
      NIMBUS_S3_BUCKET: 'nimbus',
      NIMBUS_S3_ACCESS_KEY_ID: 'id',
      NIMBUS_S3_SECRET_ACCESS_KEY: 'secret',
    };
    const config = resolveConfig(options, env, '');
    expect({
      host: config.host,
      port: config.port,
      dataDir: config.dataDir,
      storageDir: config.storageDir,
      apiKey: config.apiKey,
      logLevel: config.logLevel,
      databaseUrl: config.databaseUrl,
      s3Endpoint: config.s3?.endpoint,
    }).toEqual(options);
  });
});
