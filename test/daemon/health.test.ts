/**
 * GET /api/health, what a load balancer polls (docs/cluster.md, "Health"): public, 200
 * `{status: 'ok'}` or 503 with each probe's result; the probes run at once with a timeout
 * each, and one run serves every caller for a second. The service is tested on a small
 * context of real probes (promises that pass, fail or never settle); the route on a real daemon.
 */
import { mkdir, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_MS, checkHealth, PROBE_TIMEOUT_MS, storageProbe, type HealthContext } from '../../daemon/services/health.js';
import type { HealthProbe } from '../../daemon/context.js';
import type { FileIndex } from '../../daemon/storage/file-index.js';
import { nodeRequest, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A probe that counts its runs and does what `behave` says. */
function probe(name: string, behave: () => Promise<void>): HealthProbe & { runs: number } {
  const p = {
    name,
    runs: 0,
    check: () => {
      p.runs++;
      return behave();
    },
  };
  return p;
}

describe('checkHealth', () => {
  it('is ok with no probes and with passing ones', async () => {
    expect(await checkHealth({ probes: [] })).toEqual({ status: 'ok' });
    expect(await checkHealth({ probes: [probe('database', async () => undefined)] })).toEqual({ status: 'ok' });
  });

  it('names each probe’s result when one fails, with a short reason: the error’s code, else its first line', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
    const logs: string[] = [];
    const health = await checkHealth({
      probes: [
        probe('database', () => Promise.reject(refused)),
        probe('bucket', () => Promise.reject(new Error('NoSuchBucket: nimbus-files\n    at S3Client.send'))),
        probe('storage', async () => undefined),
      ],
      log: (line) => logs.push(line),
    });
    expect(health).toEqual({
      status: 'unavailable',
      checks: { database: 'ECONNREFUSED', bucket: 'NoSuchBucket: nimbus-files', storage: 'ok' },
    });
    // The public answer leaves the address out; the log has the whole message.
    expect(logs).toEqual([
      'Nimbus: health: database failed: connect ECONNREFUSED 10.0.0.5:5432',
      'Nimbus: health: bucket failed: NoSuchBucket: nimbus-files\n    at S3Client.send',
    ]);
  });

  it('is degraded, not unavailable, when only the bucket fails: what needs no bytes still works', async () => {
    const gone = () => Promise.reject(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    const health = await checkHealth({ probes: [probe('database', async () => undefined), probe('bucket', gone)] });
    expect(health).toEqual({ status: 'degraded', checks: { database: 'ok', bucket: 'ECONNRESET' } });
    // The database is needed for everything: with it down too, the daemon cannot serve.
    const both = await checkHealth({ probes: [probe('database', gone), probe('bucket', gone)] });
    expect(both).toEqual({ status: 'unavailable', checks: { database: 'ECONNRESET', bucket: 'ECONNRESET' } });
  });

  it('counts a probe that throws at once as failed, not the request', async () => {
    const health = await checkHealth({
      probes: [
        {
          name: 'database',
          check: () => {
            throw new Error('pool is closed');
          },
        },
      ],
    });
    expect(health).toEqual({ status: 'unavailable', checks: { database: 'pool is closed' } });
  });

  it(
    'gives up on a probe that does not answer, without waiting for it',
    async () => {
      const hung = probe('database', () => new Promise<void>(() => undefined));
      const health = await checkHealth({ probes: [hung, probe('storage', async () => undefined)] });
      expect(health).toEqual({
        status: 'unavailable',
        checks: { database: `no answer within ${PROBE_TIMEOUT_MS / 1000} s`, storage: 'ok' },
      });
    },
    PROBE_TIMEOUT_MS * 5,
  );

  it('runs the probes once for callers that arrive together, and reuses the answer for a second', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = probe('database', () => released);
    const nimbus: HealthContext = { probes: [slow] };
    const together = [checkHealth(nimbus), checkHealth(nimbus), checkHealth(nimbus)];
    release();
    expect(await Promise.all(together)).toEqual([{ status: 'ok' }, { status: 'ok' }, { status: 'ok' }]);
    expect(slow.runs).toBe(1);
    // Within the cache's second (the probe now answers at once, so this runs well inside it).
    const fast = probe('database', async () => undefined);
    const cached: HealthContext = { probes: [fast] };
    await checkHealth(cached);
    await checkHealth(cached);
    expect(fast.runs).toBe(1);
    await sleep(CACHE_MS + 50);
    await checkHealth(cached);
    expect(fast.runs).toBe(2);
  });

  it('does not answer a cached ok once a probe knows at once that it fails (a store gone unavailable)', async () => {
    let available = true;
    const database = {
      ...probe('database', async () => {
        if (!available) throw new Error('the database cannot be reached');
      }),
      failsNow: () => !available,
    };
    const nimbus: HealthContext = { probes: [database] };
    expect(await checkHealth(nimbus)).toEqual({ status: 'ok' });
    available = false;
    // Well within the cache's second: the answer is the probes' again, not the cached ok.
    expect((await checkHealth(nimbus)).status).toBe('unavailable');
  });

  it('logs a failing probe once, and again when it recovers', async () => {
    let failing = true;
    const logs: string[] = [];
    const nimbus: HealthContext = {
      probes: [probe('bucket', () => (failing ? Promise.reject(new Error('503 Service Unavailable')) : Promise.resolve()))],
      log: (line) => logs.push(line),
    };
    expect((await checkHealth(nimbus)).status).toBe('degraded');
    await sleep(CACHE_MS + 50);
    expect((await checkHealth(nimbus)).status).toBe('degraded');
    failing = false;
    await sleep(CACHE_MS + 50);
    expect(await checkHealth(nimbus)).toEqual({ status: 'ok' });
    expect(logs).toEqual(['Nimbus: health: bucket failed: 503 Service Unavailable', 'Nimbus: health: bucket is ok again']);
  });
});

describe('storageProbe', () => {
  it('fails only when the index found the storage folder unavailable', async () => {
    const index = { state: 'ready' } as FileIndex;
    const check = storageProbe({ index });
    expect(check.name).toBe('storage');
    await expect(check.check()).resolves.toBeUndefined();
    index.state = 'scanning';
    await expect(check.check()).resolves.toBeUndefined();
    index.state = 'unavailable';
    await expect(check.check()).rejects.toThrow(/storage folder/);
  });
});

describe('GET /api/health on a daemon', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t?.close());

  it('answers 200 {status: "ok"} without a key', async () => {
    const res = await t.api('GET', '/api/health', {}, { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers a HEAD with the status only', async () => {
    const res = await t.raw('HEAD', '/api/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  it('ignores a wrong key (a public row) and is not throttled by polling', async () => {
    expect((await t.api('GET', '/api/health', {}, { key: 'wrong-key' })).status).toBe(200);
    for (let i = 0; i < 200; i++) {
      const res = await t.api('GET', '/api/health', {}, { key: null });
      expect(res.status, res.text).toBe(200);
    }
  });

  it('refuses a foreign Host, like every route', async () => {
    const res = await nodeRequest(t.port, { method: 'GET', path: '/api/health', headers: { Host: 'evil.example' } });
    expect(res.status).toBe(403);
  });

  it('answers 503 naming the storage folder once it is gone, and 200 again once it is back', async () => {
    await rm(t.storageDir, { recursive: true, force: true });
    // The rescan finds the folder gone (as the watcher would): the index turns unavailable.
    await t.api('POST', '/api/dash/rescan');
    const down = await waitForStatus(t, 503);
    expect(down.body).toEqual({ status: 'unavailable', checks: { storage: 'the storage folder cannot be read' } });
    expect(t.logs).toContain('Nimbus: health: storage failed: the storage folder cannot be read');
    await mkdir(t.storageDir, { recursive: true });
    await t.api('POST', '/api/dash/rescan');
    expect((await waitForStatus(t, 200)).body).toEqual({ status: 'ok' });
  }, 30_000);

  it('is in the OpenAPI document as a public GET with its 503', async () => {
    const doc = (await t.api('GET', '/api/openapi.json')).body;
    const op = doc.paths['/api/health'].get;
    expect(op.operationId).toBe('health.get');
    expect(op.security).toEqual([]);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '503']);
  });
});

/** Polls GET /api/health (no key) until it answers `status` (the answer is cached for a second). */
async function waitForStatus(t: TestDaemon, status: number) {
  for (let i = 0; ; i++) {
    const res = await t.api('GET', '/api/health', {}, { key: null });
    if (res.status === status || i >= 100) return res;
    await sleep(100);
  }
}
