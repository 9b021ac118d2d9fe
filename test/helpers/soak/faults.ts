/**
 * The soak test's faults, one after another while the load runs (test/daemon/cluster-soak.test.ts).
 * Each names its phase in the recorder (so every answer says during which fault it came), does
 * its harm, undoes it, and waits until every daemon answers /api/health `ok` again before the
 * next: requests during the recovery still count as the fault's. What a fault itself must see
 * (through nginx while the bucket is cut, the quota raced) goes into `problems`; what it
 * measured into `notes`.
 */
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { expect, vi } from 'vitest';
import { bucketOf } from '../cluster.js';
import { TEST_KEY } from '../daemon.js';
import { allHealthy, type SoakCluster } from './cluster.js';
import type { Recorder } from './recorder.js';
import { PASSWORD, USER, type Ledger } from './workload.js';

const MIB = 1024 * 1024;
/** How long a daemon stays stopped and the bucket cut: within the 5–10 s. */
const OUTAGE_MS = 6_000;
export const QUOTA_USER = 'squota';
export const QUOTA_MIB = 1;

export interface FaultContext {
  cluster: SoakCluster;
  rec: Recorder;
  ledger: Ledger;
  problems: string[];
  notes: string[];
}

/** Runs `harm` as phase `name`, then waits for every daemon to be healthy; notes how long that took. */
async function fault(ctx: FaultContext, name: string, harm: () => Promise<void>): Promise<void> {
  ctx.rec.phase = name;
  const started = Date.now();
  // Said as it happens, so that a soak cut short by its timeout still shows where it was.
  console.log(`soak: ${name} begins (${ctx.rec.outcomes.length} answers so far)`);
  await harm();
  const undone = Date.now();
  console.log(`soak: ${name} undone after ${undone - started} ms`);
  await vi.waitFor(async () => expect(await allHealthy(ctx.cluster)).toBe(true), { timeout: 60_000, interval: 100 });
  // /api/health reuses its answer for a second (services/health.ts): an `ok` from before a
  // short fault (a PostgreSQL restart) can answer while that daemon still resyncs, and the next
  // fault's requests would get the last one's 503s. Each must also serve a listing.
  await vi.waitFor(async () => expect(await allServing(ctx.cluster)).toBe(true), { timeout: 60_000, interval: 100 });
  ctx.rec.phase = 'load';
  ctx.notes.push(`${name}: ${undone - started} ms of fault, every daemon healthy ${Date.now() - undone} ms after it was undone`);
}

/** Whether each daemon, asked directly, lists the load's user (its store serves). */
async function allServing(cluster: SoakCluster): Promise<boolean> {
  const listings = await Promise.all(
    cluster.daemons.map((d) =>
      fetch(`${d.url}/api/files?username=${USER}`, { headers: { 'API-Key': TEST_KEY } }).then(
        (res) => res.status,
        () => 0,
      ),
    ),
  );
  return listings.every((status) => status === 200);
}

/** Waits until the load has had `count` more answers (so a fault is seen by requests, whatever the machine's speed). */
async function answersSeen(rec: Recorder, count: number): Promise<void> {
  const from = rec.outcomes.length;
  await vi.waitFor(() => expect(rec.outcomes.length).toBeGreaterThanOrEqual(from + count), { timeout: 60_000, interval: 50 });
}

export async function killAndRestart(ctx: FaultContext): Promise<void> {
  const d = ctx.cluster.daemons[0];
  await fault(ctx, 'kill', async () => {
    await ctx.cluster.kill(d);
    await answersSeen(ctx.rec, 20);
    const started = Date.now();
    await ctx.cluster.restart(d);
    ctx.notes.push(`kill: the daemon listened again ${Date.now() - started} ms after its restart began`);
  });
}

export async function stopAndContinue(ctx: FaultContext): Promise<void> {
  const d = ctx.cluster.daemons[1];
  await fault(ctx, 'stop', async () => {
    d.run.child.kill('SIGSTOP');
    await delay(OUTAGE_MS);
    d.run.child.kill('SIGCONT');
  });
}

export async function restartPostgres(ctx: FaultContext, mode: 'fast' | 'immediate'): Promise<void> {
  await fault(ctx, `postgres ${mode}`, async () => {
    await ctx.cluster.postgres.stop(mode);
    await answersSeen(ctx.rec, 10);
    await ctx.cluster.postgres.restart();
  });
}

/** The bucket cut: through nginx, listings, renames, shares, sign-in and health must keep answering 2xx. */
export async function cutBucket(ctx: FaultContext): Promise<void> {
  const base = ctx.cluster.nginx.url;
  const probe = async (what: string, route: string, init: Parameters<Recorder['request']>[3] = {}) => {
    const res = await ctx.rec.request(`bucket probe: ${what}`, base, route, init);
    const ok = typeof res.status === 'number' && res.status < 300;
    // A 4xx here is this loop's own bookkeeping (a rename that failed leaves the name behind); the fault shows as 5xx.
    if (typeof res.status !== 'number' || res.status >= 500)
      ctx.problems.push(`bucket cut: ${what} answered ${res.status} ${new TextDecoder().decode(res.body).slice(0, 160)}`);
    return ok ? res.body : null;
  };
  await fault(ctx, 'bucket', async () => {
    ctx.cluster.bucketProxy.cut();
    const until = Date.now() + OUTAGE_MS;
    // The file renamed round after round (probe0.txt, made before the load), found in the listing each time.
    let current = 'probe0.txt';
    for (let round = 1; Date.now() < until; round++) {
      const listed = await probe('listing', `/api/files?username=${USER}`);
      const names = listed ? (JSON.parse(new TextDecoder().decode(listed)) as { files: { name: string }[] }).files.map((f) => f.name) : [];
      current = names.find((n) => /^probe\d+\.txt$/.test(n)) ?? current;
      await probe('rename', `/api/files/rename?username=${USER}&file=${current}&newname=probe${round}.txt`, { method: 'POST' });
      await probe('share', `/api/files/share?username=${USER}&file=probe${round}.txt`, { method: 'POST' });
      await probe('noshare', `/api/files/noshare?username=${USER}&file=probe${round}.txt`, { method: 'POST' });
      await probe('sign-in', '/api/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: USER, password: PASSWORD }),
      });
      await probe('health', '/api/health');
    }
    ctx.cluster.bucketProxy.mend();
  });
}

/** A daemon SIGKILLed while it receives a multi-part upload sent to it directly: that request alone goes unanswered. */
export async function killMidUpload(ctx: FaultContext): Promise<void> {
  const d = ctx.cluster.daemons[2];
  await fault(ctx, 'kill mid-upload', async () => {
    // Right after the bucket cut a daemon may still take the bucket for down and refuse an
    // upload (503) before reading its body: then the body never gets halfway, and waiting for
    // it hung the soak until its timeout. Sent again, as a client would, until it is read.
    const deadline = Date.now() + 30_000;
    let started = startCutUpload(d.url);
    while (!(await Promise.race([started.reached.then(() => true), started.answer.then(() => false)]))) {
      if (Date.now() > deadline) throw new Error(`kill mid-upload: the daemon never read the upload (${await started.answer})`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      started = startCutUpload(d.url);
    }
    const { answer } = started;
    ctx.ledger.gone.add('cut-upload.bin');
    // Killed once its multipart upload has begun in the bucket (the bytes sent may still be in
    // buffers), or after 30 s without one: the daemon has read 7 MiB of the body either way, so
    // it dies mid-upload. (Once in about fifteen runs, right after the bucket cut, no multipart
    // upload was visible within 30 s; the cause is not known yet, so it is noted, not failed.)
    const bucket = bucketOf(ctx.cluster.directS3);
    try {
      await vi
        .waitFor(
          async () => {
            const open = await bucket.client.send(new ListMultipartUploadsCommand({ Bucket: bucket.name }));
            expect(open.Uploads?.length ?? 0).toBeGreaterThan(0);
          },
          { timeout: 30_000, interval: 100 },
        )
        .catch(() => ctx.notes.push('kill mid-upload: no multipart upload visible in the bucket after 30 s; killed anyway'));
    } finally {
      bucket.close();
    }
    await ctx.cluster.kill(d);
    ctx.notes.push(`kill mid-upload: the upload sent to the killed daemon got ${await answer}`);
    await ctx.cluster.restart(d);
  });
}

/** An upload of 12 MiB to `base` whose body stops after 7 MiB (`reached`), and the answer it gets. */
function startCutUpload(base: string): { reached: Promise<void>; answer: Promise<string> } {
  let sent = 0;
  let halfway: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (halfway = resolve));
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= 7 * MIB) {
        halfway();
        await new Promise(() => undefined);
      }
      controller.enqueue(new Uint8Array(randomBytes(MIB)));
      sent += MIB;
    },
  });
  const answer = fetch(`${base}/api/files/upload?username=${USER}&file=cut-upload.bin`, {
    method: 'POST',
    headers: { 'API-Key': TEST_KEY, 'Content-Length': String(12 * MIB) },
    body,
    duplex: 'half',
  } as RequestInit).then(
    (res) => `${res.status}`,
    (err: Error) => `no answer (${String(err.cause ?? err.message)})`,
  );
  return { reached, answer };
}

/** Uploads raced from two daemons at once against a small quota: each 201 or 507, the quota never passed. */
export async function raceQuota(ctx: FaultContext): Promise<void> {
  const [a, b] = ctx.cluster.daemons;
  const size = 300 * 1024;
  await fault(ctx, 'quota race', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ctx.rec.request('quota upload', (i % 2 === 0 ? a : b).url, `/api/files/upload?username=${QUOTA_USER}&file=q${i}.bin`, {
          method: 'POST',
          body: new Uint8Array(size),
        }),
      ),
    );
    const stored = answers.filter((r) => r.status === 201).length;
    const refused = answers.filter((r) => r.status === 507 && r.json.code === 'quota_exceeded').length;
    if (stored + refused !== answers.length) ctx.problems.push(`quota race: ${answers.map((r) => r.status).join(', ')}`);
    if (stored * size > QUOTA_MIB * MIB) ctx.problems.push(`quota race: ${stored} uploads of ${size} bytes stored, over ${QUOTA_MIB} MiB`);
    ctx.notes.push(`quota race: ${stored} of ${answers.length} uploads stored, ${refused} refused 507 quota_exceeded`);
  });
}
