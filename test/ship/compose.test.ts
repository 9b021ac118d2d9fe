/**
 * Issue 28, item 1: deploy/compose.yaml, the cluster (two daemons, PostgreSQL, an S3 server,
 * nginx). Compose does not start it here: no image registry is reachable for postgres and nginx,
 * podman has no bridge network on these machines, and Debian 12's podman-compose (1.0.3) cannot
 * run it (it turns `network_mode: service:…` into `--network service:…` beside the project
 * network, leaves a secret's relative path unresolved, and ignores `condition: service_healthy`).
 * test/ship/cluster-containers.test.ts runs the same parts together without compose. Here:
 * PyYAML (podman-compose's own parser) reads the file, podman-compose plans it (`--dry-run up`,
 * which still creates the volumes and the network: removed after), and its parts agree with one
 * another and with deploy/nginx.conf, which the nginx tests run.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { operatorEnv, ROOT, run, runOk } from './ship-tools.js';

const COMPOSE = path.join(ROOT, 'deploy', 'compose.yaml');
const DEPLOY = path.dirname(COMPOSE);
/** A project of its own: podman-compose 1.0.3 creates the volumes and the network even with --dry-run. */
const PROJECT = `nimbus-ci-${randomBytes(4).toString('hex')}`;

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string };
  environment?: Record<string, string>;
  volumes?: string[];
  secrets?: string[];
  ports?: string[];
  network_mode?: string;
  depends_on?: Record<string, { condition: string }>;
}
interface Compose {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
}

async function available(tool: string): Promise<boolean> {
  return (await run('sh', ['-c', `command -v ${tool}`])).code === 0;
}

/** The file as podman-compose reads it (PyYAML's safe_load: anchors and `<<` merges resolved). */
async function load(): Promise<Compose> {
  const script = 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))';
  return JSON.parse((await runOk('python3', ['-c', script, COMPOSE])).stdout) as Compose;
}

describe('deploy/compose.yaml', () => {
  afterAll(async () => {
    if (!(await available('podman'))) return;
    const volumes = await run('podman', ['volume', 'ls', '-q', '--filter', `label=io.podman.compose.project=${PROJECT}`]);
    for (const volume of volumes.stdout.split('\n').filter(Boolean)) await run('podman', ['volume', 'rm', '-f', volume]);
    await run('podman', ['network', 'rm', '-f', `${PROJECT}_default`]);
  });

  it('is read by PyYAML and planned by podman-compose', async () => {
    const missing: string[] = [];
    for (const tool of ['podman-compose', 'python3']) if (!(await available(tool))) missing.push(tool);
    if (missing.length) {
      const reason = `not installed: ${missing.join(', ')} (apt-get install -y podman-compose)`;
      if (process.env.NIMBUS_REQUIRE_E2E === '1') throw new Error(`NIMBUS_REQUIRE_E2E=1 but ${reason}`);
      console.log(`skipped: ${reason}`);
      return;
    }
    const compose = await load();
    expect(Object.keys(compose.services).sort()).toEqual(['nginx', 'nimbus1', 'nimbus2', 'postgres', 's3']);
    // --dry-run prints the podman commands it would run; nothing is created.
    const env = operatorEnv({ NIMBUS_DB_PASSWORD: 'db-secret', NIMBUS_S3_SECRET: 's3-secret' });
    const planned = await runOk('podman-compose', ['--dry-run', '-p', PROJECT, '-f', COMPOSE, 'up', '-d'], { env, cwd: DEPLOY });
    for (const service of Object.keys(compose.services)) expect(planned.stdout).toContain(`com.docker.compose.service=${service}`);
    expect(planned.stdout).toContain('NIMBUS_DATABASE_URL=postgres://nimbus:db-secret@postgres:5432/nimbus');
    // Without the secrets the plan stops at once, naming the variable.
    const unset = await run('podman-compose', ['--dry-run', '-p', PROJECT, '-f', COMPOSE, 'up', '-d'], { env: operatorEnv(), cwd: DEPLOY });
    expect(`${unset.stdout}${unset.stderr}`).toMatch(/NIMBUS_DB_PASSWORD|NIMBUS_S3_SECRET/);
  });

  it('gives both daemons one configuration, on the ports deploy/nginx.conf balances', async () => {
    if (!(await available('python3'))) {
      if (process.env.NIMBUS_REQUIRE_E2E === '1') throw new Error('NIMBUS_REQUIRE_E2E=1 but python3 is not installed');
      return;
    }
    const { services, secrets } = await load();
    const { nimbus1, nimbus2, nginx, postgres, s3 } = services;
    const { NIMBUS_PORT: port1, ...env1 } = nimbus1.environment!;
    const { NIMBUS_PORT: port2, ...env2 } = nimbus2.environment!;
    expect(env2).toEqual(env1);
    const upstream = [...readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8').matchAll(/^\s*server 127\.0\.0\.1:(\d+)/gm)].map(
      (m) => m[1],
    );
    expect([port1, port2]).toEqual(upstream);
    // nginx and the second daemon share the first one's network namespace: 127.0.0.1 is theirs.
    expect(nimbus2.network_mode).toBe('service:nimbus1');
    expect(nginx.network_mode).toBe('service:nimbus1');
    expect(nginx.volumes).toContain('./nginx.conf:/etc/nginx/conf.d/default.conf:ro');
    expect(env1.NIMBUS_HOST).toBe('127.0.0.1');
    // The daemons reach the others by service name, with what those are given.
    expect(env1.NIMBUS_DATABASE_URL).toMatch(/@postgres:5432\/nimbus$/);
    expect(env1.NIMBUS_S3_ENDPOINT).toBe('http://s3:8080');
    expect(env1.NIMBUS_S3_ACCESS_KEY_ID).toBe(s3.environment!.S3_ACCESS_KEY_ID);
    expect(postgres.environment!.POSTGRES_USER).toBe('nimbus');
    expect(env1.NIMBUS_API_KEY_FILE).toBe('/run/secrets/nimbus_api_key');
    expect(nimbus1.secrets).toEqual(['nimbus_api_key']);
    expect(Object.keys(secrets)).toEqual(['nimbus_api_key']);
    // What is built is here.
    expect(existsSync(path.join(DEPLOY, nimbus1.build!.context, nimbus1.build!.dockerfile!))).toBe(true);
    expect(existsSync(path.join(DEPLOY, s3.build!.context, 'Containerfile'))).toBe(true);
    expect(nimbus1.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, s3: { condition: 'service_healthy' } });
  });
});
