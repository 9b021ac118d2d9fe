/**
 * What the soak test's requests got (test/daemon/cluster-soak.test.ts): each answer with the
 * fault phase it started and ended in, a summary of them for the measurements, and an event
 * stream that is opened again whenever it is cut.
 */
import { TEST_KEY } from '../daemon.js';

/** Past this, a request counts as unanswered (the slowest answers in a soak take about 7 s: a daemon stopped 6 s). */
const REQUEST_LIMIT_MS = 45_000;

export interface Outcome {
  op: string;
  /** The route asked for (its query names the file). */
  route: string;
  /** The HTTP status, 'no answer' (no response at all) or 'cut' (a 200 whose body broke off). */
  status: number | 'no answer' | 'cut';
  /** The fault phases the request started and ended in ('load' when none ran). */
  phases: string[];
  ms: number;
  detail?: string;
  /** X-Request-Id of the answer: its prefix names the daemon that gave it (daemon/http/request-log.ts). */
  requestId?: string;
}

/** Records every answer; `phase` names the fault running now (set by the faults). */
export class Recorder {
  readonly outcomes: Outcome[] = [];
  phase = 'load';

  /** Sends a request through `base` and records its answer; `read` consumes the body (a download hashes it). */
  async request(
    op: string,
    base: string,
    route: string,
    init: { method?: string; body?: BodyInit; headers?: Record<string, string> } = {},
  ): Promise<{ status: number | 'no answer' | 'cut'; body: Uint8Array; json: { code?: string } }> {
    const started = Date.now();
    const startPhase = this.phase;
    let status: Outcome['status'];
    let body = new Uint8Array(0);
    let detail: string | undefined;
    let requestId: string | undefined;
    try {
      const res = await fetch(`${base}${route}`, {
        method: init.method ?? 'GET',
        headers: { 'API-Key': TEST_KEY, ...init.headers },
        body: init.body,
        // A request no one answers is a finding (checkAnswers names it), not a soak that hangs until its own timeout.
        signal: AbortSignal.timeout(REQUEST_LIMIT_MS),
      });
      status = res.status;
      requestId = res.headers.get('x-request-id') ?? undefined;
      // A client told to come back (503 with Retry-After) retries at once, the worst a client
      // does: uploads failing in a millisecond become a storm of hundreds a second, which must
      // leave what needs no bucket working (an upload asks the bucket before it reserves quota).
      try {
        body = new Uint8Array(await res.arrayBuffer());
      } catch (err) {
        status = 'cut';
        detail = String((err as Error).cause ?? (err as Error).message);
      }
    } catch (err) {
      status = 'no answer';
      detail = String((err as Error).cause ?? (err as Error).message);
    }
    const phases = [...new Set([startPhase, this.phase])];
    let json: { code?: string } = {};
    if (typeof status === 'number' && status >= 400) {
      detail = new TextDecoder().decode(body).slice(0, 200);
      json = JSON.parse(detail.startsWith('{') ? new TextDecoder().decode(body) : '{}') as { code?: string };
    }
    this.outcomes.push({ op, route, status, phases, ms: Date.now() - started, detail, requestId });
    return { status, body, json };
  }
}

/** Per phase: how many answers of each status, per operation, and the slowest answer (the measurements). */
export function summarise(outcomes: Outcome[]): string[] {
  const phases = new Map<string, { counts: Map<string, number>; slowest: number }>();
  for (const o of outcomes) {
    const key = o.phases.join(' → ');
    const entry = phases.get(key) ?? { counts: new Map<string, number>(), slowest: 0 };
    const label = `${o.op} ${o.status}`;
    entry.counts.set(label, (entry.counts.get(label) ?? 0) + 1);
    entry.slowest = Math.max(entry.slowest, o.ms);
    phases.set(key, entry);
  }
  return [...phases].map(
    ([phase, { counts, slowest }]) =>
      `${phase}: ${[...counts]
        .sort()
        .map(([label, n]) => `${label} ×${n}`)
        .join(', ')}; slowest ${slowest} ms`,
  );
}

/** The answers about the files a problem names (`w<worker>-<n>.bin`): to tell what happened to them. */
export function historyOf(outcomes: Outcome[], problems: string[]): string[] {
  const names = new Set(problems.flatMap((p) => p.match(/w\d+-\d+\.bin/g) ?? []));
  return outcomes
    .filter((o) => [...names].some((n) => o.route.includes(`=${n}`)))
    .map((o) => `${o.op} ${o.route} during ${o.phases.join(' → ')}: ${o.status}${o.requestId ? ` (request ${o.requestId})` : ''}`);
}

/** An event stream through nginx, opened again whenever it ends (its daemon killed): what it received, and how often it was cut. */
export function watchEvents(base: string): { text: () => string; cuts: () => number; stop: () => void } {
  let received = '';
  let cuts = 0;
  let stopped = false;
  const controller = new AbortController();
  void (async () => {
    while (!stopped) {
      try {
        const res = await fetch(`${base}/api/events`, { headers: { 'API-Key': TEST_KEY }, signal: controller.signal });
        const reader = res.body!.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          received += new TextDecoder().decode(value);
        }
      } catch {
        // Cut (its daemon killed, or nginx found none): counted, and opened again.
      }
      if (stopped) return;
      cuts++;
      // A pause before opening again, as EventSource's retry does (not a wait for anything).
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    text: () => received,
    cuts: () => cuts,
    stop() {
      stopped = true;
      controller.abort();
    },
  };
}
