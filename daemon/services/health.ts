/**
 * What `GET /api/health` answers (docs/cluster.md, "Health"): every probe of the daemon
 * (`NimbusContext.probes`: the database, the bucket, the storage folder, whichever the
 * configured backends have) run at once, each given PROBE_TIMEOUT_MS: 200 `ok`, 200 `degraded`
 * (only the bucket failed) or 503 `unavailable`. A load balancer polls
 * this every second or faster, from several balancers at once: the result is kept for
 * CACHE_MS and callers arriving while a run is in flight share it, so polling costs at most
 * one run of the probes per second whatever the rate.
 */
import type { Health } from '../../shared/types.js';
import type { HealthProbe, NimbusContext } from '../context.js';

/** A probe that has not answered by then counts as failed: a balancer must not wait on a hung database. */
export const PROBE_TIMEOUT_MS = 2000;
/** How long one run's answer is reused. */
export const CACHE_MS = 1000;
/**
 * Probes whose failure leaves the daemon serving: with the bucket down, listings, renames,
 * shares and sign-ins (rows) still work and only what needs bytes answers 503. Such a failure
 * is 200 `degraded`, so a balancer polling this keeps the daemon (every daemon shares the
 * bucket: dropping them all would take down what still works). The database and the storage
 * folder are needed by every request: their failure is 503 `unavailable`.
 */
const NON_ESSENTIAL_PROBES = new Set(['bucket']);
/** Reasons are cut to this: the route is public, and a balancer needs a hint, not a stack. */
const MAX_REASON = 120;

/** What the health check needs of the daemon: its probes, and where a probe's change of state is logged. */
export type HealthContext = Pick<NimbusContext, 'probes'> & Partial<Pick<NimbusContext, 'log'>>;

interface HealthState {
  running: Promise<Health> | null;
  result: Health | null;
  /** When `result` was made (performance.now()). */
  at: number;
  /** Each probe's last reason ('ok' when it passed), so only changes are logged, not every poll. */
  last: Map<string, string>;
}

const states = new WeakMap<HealthContext, HealthState>();

/** The daemon's health, from the cache when it is fresh, else from one run of its probes shared by every caller meanwhile. */
export function checkHealth(nimbus: HealthContext): Promise<Health> {
  let state = states.get(nimbus);
  if (!state) states.set(nimbus, (state = { running: null, result: null, at: 0, last: new Map() }));
  // A cached ok is not reused once a probe knows it fails: a balancer must see a daemon whose
  // store went unavailable (resyncing after a database restart) at once, not a second later.
  const knownFailing = state.result?.status !== 'unavailable' && nimbus.probes.some((probe) => probe.failsNow?.());
  if (state.result && !knownFailing && performance.now() - state.at < CACHE_MS) return Promise.resolve(state.result);
  if (state.running) return state.running;
  const current = state;
  current.running = runProbes(nimbus, current).finally(() => (current.running = null));
  return current.running;
}

async function runProbes(nimbus: HealthContext, state: HealthState): Promise<Health> {
  const probes = [...nimbus.probes];
  const outcomes = await Promise.all(probes.map((probe) => probeOutcome(probe)));
  const checks: Record<string, string> = {};
  probes.forEach((probe, i) => {
    const { reason, detail } = outcomes[i];
    checks[probe.name] = reason;
    // The full message goes to the log (once per change); the public answer keeps the short reason.
    if (reason !== (state.last.get(probe.name) ?? 'ok'))
      nimbus.log?.(reason === 'ok' ? `Nimbus: health: ${probe.name} is ok again` : `Nimbus: health: ${probe.name} failed: ${detail}`);
    state.last.set(probe.name, reason);
  });
  const failed = probes.filter((_, i) => outcomes[i].reason !== 'ok');
  const health: Health =
    failed.length === 0
      ? { status: 'ok' }
      : failed.every((probe) => NON_ESSENTIAL_PROBES.has(probe.name))
        ? { status: 'degraded', checks }
        : { status: 'unavailable', checks };
  state.result = health;
  state.at = performance.now();
  return health;
}

/**
 * `reason`: 'ok', or a short one: the error's code (ECONNREFUSED, 57P01…) when it has one,
 * else its first line, cut (the route is public: a connection error's message names internal
 * addresses). `detail`: the whole message, for the log.
 */
async function probeOutcome(probe: HealthProbe): Promise<{ reason: string; detail: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS);
    timer.unref();
  });
  try {
    // A probe that throws synchronously is a failed probe too, not a failed request.
    await Promise.race([Promise.resolve().then(() => probe.check()), timeout]);
    return { reason: 'ok', detail: 'ok' };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { reason: shortReason(err, message), detail: message };
  } finally {
    clearTimeout(timer);
  }
}

function shortReason(err: unknown, message: string): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code) return code.slice(0, MAX_REASON);
  const line = (message.split('\n')[0] ?? '').trim() || 'failed';
  return line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 1)}…` : line;
}

/**
 * The embedded mode's probe (the storage folder): fails once the file index has found the
 * folder gone or unreadable (`index.state === 'unavailable'`, set by the scan and the watcher),
 * which is when file requests answer 503 `storage_unavailable` too.
 */
export function storageProbe(nimbus: Pick<NimbusContext, 'index'>): HealthProbe {
  return {
    name: 'storage',
    check: async () => {
      if (nimbus.index.state === 'unavailable') throw new Error('the storage folder cannot be read');
    },
  };
}
