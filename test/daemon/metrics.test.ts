/**
 * GET /metrics (issue 28, docs/metrics.md): Prometheus' text format, read by a parser nobody
 * here wrote (parse-prometheus-text-format), after real requests through every door; who may
 * scrape (a key, or an address of NIMBUS_METRICS_ALLOW; loopback is not allowed by default);
 * nothing in any label that names a user or a file; never the web UI's page.
 */
// @ts-expect-error -- the package ships no types; what it returns is typed below (Family).
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../daemon/config.js';
import { api } from '../helpers/api.js';
import { createUser, nodeRequest, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream, type EventStream } from '../helpers/events.js';
import { create, locationOf, patch } from '../helpers/tus.js';

/** One metric family as the parser gives it (its README: prom2json's shape). */
interface Family {
  name: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }[];
}

const parse = parsePrometheusTextFormat as (text: string) => Family[];
/** A username and a file name that must appear in no scrape. */
const USER = 'metrics-user-zq';
const FILE = 'secret-plan-zq.txt';
/** The address a test connection comes from to be let in without a key (127.0.0.0/8 is all loopback on Linux). */
const ALLOWED_ADDRESS = '127.0.0.2';

let t: TestDaemon;
let stream: EventStream;

beforeAll(async () => {
  t = await startTestDaemon({ env: { NIMBUS_METRICS_ALLOW: `${ALLOWED_ADDRESS}, 10.9.0.0/16` } });
  // A quota of 1 MiB, so a 2 MiB upload is refused with 507.
  await t.api('POST', '/api/role/create', { name: 'tiny', maxStorage: '1', badge: 'https://example.com/t.png' });
  await createUser(t, USER);
  await t.api('POST', '/api/user/role', { username: USER, name: 'tiny' });
  const upload = await t.api('POST', '/api/files/upload', { username: USER, file: FILE }, { body: new Uint8Array(1000).fill(7) });
  expect(upload.status, upload.text).toBe(201);
  expect((await api(t, 'files.download', { username: USER, file: FILE })).status).toBe(200);
  expect((await api(t, 'files.download', { username: USER, file: 'missing.txt' })).status).toBe(404);
  const refused = await t.api('POST', '/api/files/upload', { username: USER, file: 'big.bin' }, { body: new Uint8Array(2 * 1024 * 1024) });
  expect(refused.status, refused.text).toBe(507);
  expect((await t.raw('OPTIONS', '/dav/')).status).toBe(200);
  // The same refusal through WebDAV (its user's password as Basic authentication).
  const basic = `Basic ${Buffer.from(`${USER}:password123`).toString('base64')}`;
  const davRefused = await t.raw('PUT', `/dav/${USER}/big.bin`, {
    key: null,
    headers: { Authorization: basic },
    body: new Uint8Array(2 * 1024 * 1024),
  });
  expect(davRefused.status, davRefused.text).toBe(507);
  expect((await t.raw('OPTIONS', '/api/uploads')).status).toBeLessThan(300);
  // A resumable upload of 500 bytes: created, then its one PATCH places it.
  const location = locationOf(await create(t, { username: USER, filename: 'resumed.bin' }, 500));
  expect((await patch(t, location, 0, Buffer.alloc(500, 3))).status).toBe(204);
  stream = await openEventStream(t.url, { 'API-Key': t.key });
  expect(stream.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await stream?.close();
  await t?.close();
});

async function scrape(): Promise<{ text: string; families: Map<string, Family> }> {
  const res = await t.raw('GET', '/metrics');
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('Content-Type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return { text: res.text, families: byName(parse(res.text)) };
}

/** The families by name, the series of families the parser gave twice (untyped samples, one run at a time) put together. */
function byName(families: Family[]): Map<string, Family> {
  const named = new Map<string, Family>();
  for (const family of families) {
    const known = named.get(family.name);
    if (known) known.metrics.push(...family.metrics);
    else named.set(family.name, family);
  }
  return named;
}

/** The value of the series of `name` whose labels include `labels`; undefined when there is none. */
function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const series = families.get(name)?.metrics.find((m) => Object.entries(labels).every(([label, value]) => m.labels?.[label] === value));
  if (!series) return undefined;
  return Number(series.value ?? series.count);
}

describe('GET /metrics', () => {
  it('counts requests by endpoint id and status, never by path', async () => {
    const { families } = await scrape();
    const requests = (labels: Record<string, string>) => valueOf(families, 'nimbus_http_requests_total', labels);
    expect(requests({ endpoint: 'files.upload', status: '201' })).toBe(1);
    expect(requests({ endpoint: 'files.upload', status: '507' })).toBe(1);
    expect(requests({ endpoint: 'files.download', status: '200' })).toBe(1);
    expect(requests({ endpoint: 'files.download', status: '404' })).toBe(1);
    expect(requests({ endpoint: 'dav.OPTIONS', status: '200' })).toBe(1);
    expect(requests({ endpoint: 'dav.PUT', status: '507' })).toBe(1);
    expect(requests({ endpoint: 'tus.OPTIONS' })).toBe(1);
    expect(requests({ endpoint: 'tus.POST', status: '201' })).toBe(1);
    expect(requests({ endpoint: 'tus.PATCH', status: '204' })).toBe(1);
    const endpoints = new Set(families.get('nimbus_http_requests_total')!.metrics.map((m) => m.labels!.endpoint));
    for (const endpoint of endpoints) expect(endpoint).toMatch(/^([a-z]+(\.[a-z]+)*|dav\.[A-Z]+|tus\.[A-Z]+|other|metrics)$/);
  });

  it('times requests in a histogram per endpoint, leaving event streams out', async () => {
    const { text, families } = await scrape();
    expect(families.get('nimbus_http_request_duration_seconds')!.type).toBe('HISTOGRAM');
    // The parser folds a histogram's series into one whatever their other labels (it keeps only
    // `le`): read without its TYPE line, each `_bucket`, `_sum` and `_count` sample keeps its labels.
    const samples = byName(parse(text.replace('# TYPE nimbus_http_request_duration_seconds histogram\n', '')));
    const upload = { endpoint: 'files.upload' };
    expect(valueOf(samples, 'nimbus_http_request_duration_seconds_count', upload)).toBe(2);
    expect(valueOf(samples, 'nimbus_http_request_duration_seconds_bucket', { ...upload, le: '+Inf' })).toBe(2);
    expect(valueOf(samples, 'nimbus_http_request_duration_seconds_sum', upload)).toBeGreaterThan(0);
    expect(valueOf(samples, 'nimbus_http_request_duration_seconds_count', { endpoint: 'events.stream' })).toBeUndefined();
  });

  it('exports open event streams, quota refusals, upload bytes, store commits and the index', async () => {
    const { families } = await scrape();
    expect(valueOf(families, 'nimbus_event_streams_open')).toBe(1);
    expect(valueOf(families, 'nimbus_quota_refusals_total')).toBe(2); // files.upload's and WebDAV's
    expect(valueOf(families, 'nimbus_upload_bytes_total')).toBe(1500); // files.upload's 1000, tus's 500
    expect(valueOf(families, 'nimbus_store_commit_seconds')).toBeGreaterThanOrEqual(3); // role, user, role change
    expect(valueOf(families, 'nimbus_index_state', { state: 'ready' })).toBe(1);
    expect(valueOf(families, 'nimbus_index_state', { state: 'scanning' })).toBe(0);
    expect(valueOf(families, 'nimbus_index_users')).toBe(1);
    expect(valueOf(families, 'nimbus_index_files')).toBe(2);
    expect(valueOf(families, 'nimbus_index_bytes')).toBe(1500);
    expect(valueOf(families, 'nimbus_build_info')).toBe(1);
    expect(valueOf(families, 'nimbus_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('exports the PostgreSQL and S3 error counters where those backends are used', async () => {
    const { families } = await scrape();
    if (t.env.NIMBUS_DATABASE_URL) {
      for (const kind of ['connection', 'pool_busy', 'statement'])
        expect(valueOf(families, 'nimbus_postgres_errors_total', { kind })).toBe(0);
      expect(valueOf(families, 'nimbus_postgres_available')).toBe(1);
    } else expect(families.has('nimbus_postgres_errors_total')).toBe(false);
    if (t.env.NIMBUS_S3_ENDPOINT) {
      expect(valueOf(families, 'nimbus_s3_errors_total')).toBe(0);
      expect(valueOf(families, 'nimbus_s3_reachable')).toBe(1);
    } else expect(families.has('nimbus_s3_errors_total')).toBe(false);
  });

  it('names every metric nimbus_… and puts no username or file name anywhere', async () => {
    const { text, families } = await scrape();
    for (const name of families.keys()) expect(name).toMatch(/^nimbus_/);
    expect(text).not.toContain(USER);
    expect(text).not.toContain(FILE);
  });
});

describe('who may read /metrics', () => {
  it('refuses a request without a key, or with a wrong one, and says nothing of the metrics', async () => {
    for (const key of [null, 'wrong-key-0123456789abcdef']) {
      const res = await t.raw('GET', '/metrics', { key, headers: { Accept: 'text/html' } });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
      expect(res.text).not.toContain('nimbus_');
    }
  });

  it('refuses a signed-in user who is no administrator (403)', async () => {
    const session = await api(t, 'auth.login', { username: USER, password: 'password123' }, { key: null });
    const cookie = /nimbus_session=[^;]+/.exec(session.headers.get('Set-Cookie') ?? '')![0];
    const res = await t.raw('GET', '/metrics', { key: null, headers: { Cookie: cookie } });
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('nimbus_');
  });

  it('lets a read-only machine key scrape (what Prometheus on another host is given)', async () => {
    const created = await api(t, 'keys.create', { label: 'prometheus', scope: 'read' });
    expect(created.status, created.text).toBe(201);
    const res = await t.raw('GET', '/metrics', { key: null, headers: { Authorization: `Bearer ${created.body.key}` } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('nimbus_http_requests_total');
  });

  it('lets an address of NIMBUS_METRICS_ALLOW scrape without a key, and no other (loopback is not allowed by default)', async () => {
    const host = { Host: `127.0.0.1:${t.port}` };
    const allowed = await nodeRequest(t.port, { path: '/metrics', headers: host, localAddress: ALLOWED_ADDRESS });
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain('nimbus_http_requests_total');
    // 127.0.0.1 is not in the list: a header claiming the allowed address changes nothing.
    const forwarded = await nodeRequest(t.port, { path: '/metrics', headers: { ...host, 'X-Forwarded-For': ALLOWED_ADDRESS } });
    expect(forwarded.status).toBe(401);
    expect(forwarded.text).not.toContain('nimbus_');
  });

  it('is never the web UI’s page: other methods are 405, HEAD has no body, a trailing slash is the same path', async () => {
    expect((await t.raw('POST', '/metrics')).status).toBe(405);
    const head = await t.raw('HEAD', '/metrics');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const slash = await t.raw('GET', '/metrics/', { headers: { Accept: 'text/html' } });
    expect(slash.status).toBe(200);
    expect(slash.headers.get('Content-Type')).not.toContain('html');
    expect(slash.text).not.toMatch(/^\s*</);
  });

  it('takes addresses and CIDR ranges, and a daemon given anything else does not start', () => {
    expect(resolveConfig({}, { NIMBUS_METRICS_ALLOW: '10.0.0.7, 10.1.0.0/16,fd00::/8' }, '').metricsAllow).toEqual([
      '10.0.0.7',
      '10.1.0.0/16',
      'fd00::/8',
    ]);
    for (const wrong of ['prometheus.internal', '10.0.0.0/33', '10.0.0.1/x'])
      expect(() => resolveConfig({}, { NIMBUS_METRICS_ALLOW: wrong }, '')).toThrow(
        /NIMBUS_METRICS_ALLOW.*not an IP address or a CIDR range/,
      );
  });

  it('refuses a foreign Host before anything else, as every route does (DNS rebinding)', async () => {
    const res = await nodeRequest(t.port, { path: '/metrics', headers: { Host: 'evil.example:80' }, localAddress: ALLOWED_ADDRESS });
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('nimbus_');
  });
});
