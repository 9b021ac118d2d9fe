/**
 * The configuration of the issue-14 backends (docs/cluster.md, "Modes"): --database-url and
 * --s3-endpoint with their NIMBUS_* variables, flags winning, each mistake named by its
 * variable and a password never repeated; and the CLI's help naming them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertSharedAdminKey } from '../../daemon/backends.js';
import { redactUrl, resolveConfig } from '../../daemon/config.js';
import { childEnv, runCli } from '../helpers/child.js';

const S3_ENV = {
  NIMBUS_S3_ENDPOINT: 'http://127.0.0.1:8080',
  NIMBUS_S3_BUCKET: 'nimbus-files',
  NIMBUS_S3_ACCESS_KEY_ID: 'test:tester',
  NIMBUS_S3_SECRET_ACCESS_KEY: 's3cr3t-key',
};

const resolve = (env: NodeJS.ProcessEnv, input: Parameters<typeof resolveConfig>[0] = {}) =>
  resolveConfig({ dataDir: '/tmp/nimbus-config-test', ...input }, env, '/tmp/renderer');

describe('the embedded default', () => {
  it('has no database and no bucket when nothing is set', () => {
    const config = resolve({});
    expect(config.databaseUrl).toBeNull();
    expect(config.s3).toBeNull();
  });
});

describe('PostgreSQL and S3 together (several daemons)', () => {
  it('need NIMBUS_API_KEY to start a daemon: every daemon must accept the same admin key', () => {
    const both = { ...S3_ENV, NIMBUS_DATABASE_URL: 'postgres://nimbus@db.example/nimbus' };
    expect(() => assertSharedAdminKey(resolve(both))).toThrow(/NIMBUS_API_KEY/);
    expect(() => assertSharedAdminKey(resolve({ ...both, NIMBUS_API_KEY: 'k'.repeat(32) }))).not.toThrow();
    expect(() => assertSharedAdminKey(resolve(both, { apiKey: 'k'.repeat(32) }))).not.toThrow();
    // One daemon per data directory otherwise: its own keychain is fine.
    expect(() => assertSharedAdminKey(resolve(S3_ENV))).not.toThrow();
  });
});

describe('NIMBUS_DATABASE_URL and --database-url', () => {
  it.each(['postgres://nimbus:pw@db.example:5432/nimbus', 'postgresql://nimbus@10.0.0.5/nimbus?sslmode=require'])(
    'takes %s as it is',
    (url) => {
      expect(resolve({ NIMBUS_DATABASE_URL: url }).databaseUrl).toBe(url);
    },
  );

  it('accepts a Unix socket given as ?host=', () => {
    const url = 'postgres:///nimbus?host=/run/postgresql';
    expect(resolve({ NIMBUS_DATABASE_URL: url }).databaseUrl).toBe(url);
  });

  it('lets the flag win over the variable', () => {
    const config = resolve({ NIMBUS_DATABASE_URL: 'postgres://a@one/db' }, { databaseUrl: 'postgres://b@two/db' });
    expect(config.databaseUrl).toBe('postgres://b@two/db');
  });

  it('refuses another scheme, naming the variable and hiding the password', () => {
    const call = () => resolve({ NIMBUS_DATABASE_URL: 'mysql://root:hunter2@db/nimbus' });
    expect(call).toThrow(
      /^Invalid NIMBUS_DATABASE_URL: mysql:\/\/root:\*\*\*@db\/nimbus \(expected a postgres:\/\/ or postgresql:\/\/ URL\)$/,
    );
    expect(call).not.toThrow(/hunter2/);
  });

  it('names the flag when the flag is wrong', () => {
    expect(() => resolve({}, { databaseUrl: 'https://db/nimbus' })).toThrow(/^Invalid --database-url: /);
  });

  it('refuses what is not a URL without repeating it', () => {
    const call = () => resolve({ NIMBUS_DATABASE_URL: 'nimbus:hunter2 at db' });
    expect(call).toThrow(/^Invalid NIMBUS_DATABASE_URL: not a URL/);
    expect(call).not.toThrow(/hunter2/);
  });

  it('refuses a URL with no host', () => {
    expect(() => resolve({ NIMBUS_DATABASE_URL: 'postgres://' })).toThrow(/has no host/);
  });
});

describe('NIMBUS_S3_* and --s3-endpoint', () => {
  it('reads every variable, with path-style URLs and us-east-1 by default', () => {
    expect(resolve(S3_ENV).s3).toEqual({
      endpoint: 'http://127.0.0.1:8080',
      bucket: 'nimbus-files',
      region: 'us-east-1',
      accessKeyId: 'test:tester',
      secretAccessKey: 's3cr3t-key',
      forcePathStyle: true,
    });
  });

  it('takes the region and path style when given', () => {
    const s3 = resolve({ ...S3_ENV, NIMBUS_S3_REGION: 'eu-west-3', NIMBUS_S3_FORCE_PATH_STYLE: '0' }).s3;
    expect(s3).toMatchObject({ region: 'eu-west-3', forcePathStyle: false });
    expect(resolve({ ...S3_ENV, NIMBUS_S3_FORCE_PATH_STYLE: '1' }).s3?.forcePathStyle).toBe(true);
    expect(() => resolve({ ...S3_ENV, NIMBUS_S3_FORCE_PATH_STYLE: 'maybe' })).toThrow(
      /Invalid NIMBUS_S3_FORCE_PATH_STYLE: maybe \(1 or 0\)/,
    );
  });

  it('lets --s3-endpoint win over the variable, and a trailing slash go', () => {
    expect(resolve(S3_ENV, { s3Endpoint: 'https://s3.example.com/' }).s3?.endpoint).toBe('https://s3.example.com');
    const { NIMBUS_S3_ENDPOINT: _unused, ...withoutEndpoint } = S3_ENV;
    void _unused;
    expect(resolve(withoutEndpoint, { s3Endpoint: 'http://swift:8080' }).s3?.bucket).toBe('nimbus-files');
  });

  it('works beside a database URL (the several-daemons mode)', () => {
    const config = resolve({ ...S3_ENV, NIMBUS_DATABASE_URL: 'postgres://nimbus:pw@db/nimbus', NIMBUS_API_KEY: 'k'.repeat(32) });
    expect(config.databaseUrl).not.toBeNull();
    expect(config.s3).not.toBeNull();
  });

  it('refuses an endpoint that is not http(s)', () => {
    expect(() => resolve({ ...S3_ENV, NIMBUS_S3_ENDPOINT: 'ftp://store' })).toThrow(
      /^Invalid NIMBUS_S3_ENDPOINT: ftp:\/\/store.*http:\/\/ or https:\/\//,
    );
    expect(() => resolve({ ...S3_ENV, NIMBUS_S3_ENDPOINT: 'store:8080 please' })).toThrow(/^Invalid NIMBUS_S3_ENDPOINT: not a URL/);
    expect(() => resolve(S3_ENV, { s3Endpoint: 'nope' })).toThrow(/^Invalid --s3-endpoint/);
  });

  it('refuses credentials inside the endpoint, without repeating them', () => {
    const call = () => resolve({ ...S3_ENV, NIMBUS_S3_ENDPOINT: 'http://key:hunter2@store:8080' });
    expect(call).toThrow(/NIMBUS_S3_ACCESS_KEY_ID and NIMBUS_S3_SECRET_ACCESS_KEY, not in the URL/);
    expect(call).not.toThrow(/hunter2/);
  });

  it('requires the bucket with an endpoint, and a bucket only with an endpoint', () => {
    expect(() => resolve({ ...S3_ENV, NIMBUS_S3_BUCKET: '' })).toThrow(/^NIMBUS_S3_BUCKET is required when NIMBUS_S3_ENDPOINT is set$/);
    expect(() => resolve({ NIMBUS_S3_BUCKET: 'nimbus-files' })).toThrow(/NIMBUS_S3_BUCKET is set but NIMBUS_S3_ENDPOINT is not/);
  });

  it.each(['ab', 'a'.repeat(64), 'Nimbus', 'nimbus_files', '-nimbus', 'nimbus-', 'nim..bus', '192.168.1.20'])(
    'refuses the bucket name %s',
    (bucket) => {
      expect(() => resolve({ ...S3_ENV, NIMBUS_S3_BUCKET: bucket })).toThrow(/^Invalid NIMBUS_S3_BUCKET: .* \(3 to 63 characters/);
    },
  );

  it.each(['abc', 'a'.repeat(63), 'nimbus.files-2'])('accepts the bucket name %s', (bucket) => {
    expect(resolve({ ...S3_ENV, NIMBUS_S3_BUCKET: bucket }).s3?.bucket).toBe(bucket);
  });

  it('requires both credentials, saying which is missing', () => {
    expect(() => resolve({ ...S3_ENV, NIMBUS_S3_SECRET_ACCESS_KEY: '' })).toThrow(
      /^NIMBUS_S3_SECRET_ACCESS_KEY is required when NIMBUS_S3_ENDPOINT is set/,
    );
    expect(() => resolve({ ...S3_ENV, NIMBUS_S3_ACCESS_KEY_ID: '', NIMBUS_S3_SECRET_ACCESS_KEY: '' })).toThrow(
      /^NIMBUS_S3_ACCESS_KEY_ID and NIMBUS_S3_SECRET_ACCESS_KEY are required when NIMBUS_S3_ENDPOINT is set/,
    );
  });
});

describe('redactUrl', () => {
  it('replaces the password only', () => {
    expect(redactUrl('postgres://nimbus:hunter2@db.example:5432/nimbus')).toBe('postgres://nimbus:***@db.example:5432/nimbus');
    expect(redactUrl('postgres://nimbus@db/nimbus')).toBe('postgres://nimbus@db/nimbus');
  });

  it('hides a password with escaped characters', () => {
    const shown = redactUrl('postgresql://nimbus:p%40ss%2Fw0rd@db/nimbus?sslmode=require');
    expect(shown).toBe('postgresql://nimbus:***@db/nimbus?sslmode=require');
  });

  it('shows nothing of what does not parse', () => {
    expect(redactUrl('nimbus:hunter2 at db')).toBe('(not a URL)');
  });
});

describe('the command line', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('names the new flags and variables in --help', async () => {
    const run = runCli(['--help']);
    expect(await run.exited).toBe(0);
    for (const word of [
      '--database-url',
      '--s3-endpoint',
      'NIMBUS_DATABASE_URL',
      'NIMBUS_S3_ENDPOINT',
      'NIMBUS_S3_BUCKET',
      'NIMBUS_S3_REGION',
      'NIMBUS_S3_ACCESS_KEY_ID',
      'NIMBUS_S3_SECRET_ACCESS_KEY',
      'NIMBUS_S3_FORCE_PATH_STYLE',
    ])
      expect(run.stdout()).toContain(word);
  });

  it('exits 1 before starting anything for a wrong --database-url, without printing its password', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'nimbus-config-'));
    dirs.push(parent);
    const dataDir = path.join(parent, 'never');
    const run = runCli(['daemon', '--port', '0', '--data-dir', dataDir, '--database-url', 'mysql://root:hunter2@db/nimbus'], childEnv());
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe('nimbus: Invalid --database-url: mysql://root:***@db/nimbus (expected a postgres:// or postgresql:// URL)\n');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('exits 1 naming the missing variable for --s3-endpoint alone', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'nimbus-config-'));
    dirs.push(parent);
    const run = runCli(
      ['daemon', '--port', '0', '--data-dir', path.join(parent, 'never'), '--s3-endpoint', 'http://127.0.0.1:9'],
      childEnv(),
    );
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe('nimbus: NIMBUS_S3_BUCKET is required when --s3-endpoint is set\n');
  });
});

describe('the admin key from a file (NIMBUS_API_KEY_FILE: a container secret, systemd’s LoadCredential=)', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
  const keyFile = async (contents: string) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-keyfile-'));
    dirs.push(dir);
    const file = path.join(dir, 'key');
    await writeFile(file, contents);
    return file;
  };

  it('reads the key, its trailing newline dropped, and is one with NIMBUS_API_KEY for a cluster', async () => {
    const file = await keyFile(`${'f'.repeat(40)}\n`);
    expect(resolve({ NIMBUS_API_KEY_FILE: file }).apiKey).toBe('f'.repeat(40));
    const both = { ...S3_ENV, NIMBUS_DATABASE_URL: 'postgres://nimbus@db.example/nimbus', NIMBUS_API_KEY_FILE: file };
    expect(() => assertSharedAdminKey(resolve(both))).not.toThrow();
  });

  it('stops the start when it is missing or empty, or NIMBUS_API_KEY is set too', async () => {
    expect(() => resolve({ NIMBUS_API_KEY_FILE: '/nonexistent/nimbus-key' })).toThrow(/NIMBUS_API_KEY_FILE: cannot read/);
    const empty = await keyFile('\n');
    expect(() => resolve({ NIMBUS_API_KEY_FILE: empty })).toThrow(/is empty/);
    const file = await keyFile('k'.repeat(32));
    expect(() => resolve({ NIMBUS_API_KEY_FILE: file, NIMBUS_API_KEY: 'k'.repeat(32) })).toThrow(/both set/);
  });
});
