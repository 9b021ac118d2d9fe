/**
 * The event stream (issue 15): 1,000 clients hold GET /api/events open, each with the admin
 * key (an admin's stream carries every event), and each change, a folder made through the API,
 * must reach every one of them within 100 ms at p99. The subscribers run in a child of their
 * own (bench/lib/sse-subscribers.mjs) that also makes the changes, so each latency runs from
 * the moment the change's request is sent to the moment that stream's message arrives, on one
 * clock. A message that never arrives fails the row: it is not a sample left out.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnChild } from '../lib/child.js';
import type { Bench } from '../lib/context.js';
import { api, request, ROOT } from '../lib/nimbus.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';

/** The user whose storage the changes are made in; created when the target has none. */
const EVENTS_USER = 'sse-bench';
const SUBSCRIBERS = 1000;
const CHANGES = 20;
/** Between two changes: a change every 150 ms, well apart from the 100 ms goal. */
const SPACING_MS = 150;
/** How long after the last change the subscribers wait for what is still missing. */
const GIVE_UP_MS = 5000;
const GOAL_P99_MS = 100;

export interface FanoutResult {
  subscribers: number;
  changes: number;
  /** ms from the first stream opened to the last one's `: connected`. */
  connectMs: number;
  /** ms each stream took to open (request sent to `: connected`), by subscriber. */
  connectEachMs: number[];
  /** [change][subscriber]: ms from the change's request sent to its message received; null when it never came. */
  latencies: (number | null)[][];
  /** Per change: ms from its request sent to its answer (201). */
  answeredMs: number[];
  /** CPU time of the subscribers' process, start to end (ms). */
  subscriberCpuMs: number;
  /** Per change: how many subscribers received it. */
  receivedBy: number[];
  /** Every latency received, all (subscriber, change) pairs flattened. */
  samples: number[];
  /** (subscriber, change) pairs that never arrived. */
  missed: number;
}

interface ChildOutput {
  connectMs: number;
  connectEachMs: number[];
  latencies: (number | null)[][];
  statuses: (number | string)[];
  answeredMs: number[];
  cpuMs: number;
  otherMessages: number;
}

/** Makes the user the changes are made in, unless the target already has it. */
async function ensureUser(target: { url: string; key: string }): Promise<void> {
  const reply = await request('GET', `${target.url}/api/user?username=${EVENTS_USER}`, target.key);
  if (reply.status === 200) return;
  await api(target, 'POST', '/api/user/create', {
    username: EVENTS_USER,
    email: `${EVENTS_USER}@example.org`,
    password: 'sse-bench-password',
  });
}

/**
 * `subscribers` event streams on `target`, then `changes` folders made one every 150 ms:
 * when each stream received each one. The folders are deleted afterwards (for good).
 */
export async function measureEventFanout(
  target: { url: string; key: string },
  options: { subscribers: number; changes: number; log: (line: string) => void },
): Promise<FanoutResult> {
  await ensureUser(target);
  const prefix = `sse-${Date.now().toString(36)}-`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nimbus-sse-'));
  const out = path.join(dir, 'result.json');
  const config = {
    url: target.url,
    key: target.key,
    subscribers: options.subscribers,
    changes: options.changes,
    username: EVENTS_USER,
    prefix,
    spacingMs: SPACING_MS,
    giveUpMs: GIVE_UP_MS,
    out,
  };
  const child = spawnChild(process.execPath, [path.join(ROOT, 'bench', 'lib', 'sse-subscribers.mjs'), JSON.stringify(config)], {
    cwd: ROOT,
  });
  try {
    const connected = await child.waitFor(/CONNECTED (\S+)/, 120_000);
    options.log(`  ${options.subscribers} streams open in ${fmt.ms(Number(connected[1]))}`);
    await child.waitFor(/DONE/, 120_000 + options.changes * SPACING_MS + GIVE_UP_MS);
    const result = JSON.parse(readFileSync(out, 'utf8')) as ChildOutput;
    const refused = result.statuses.map((s, i) => [i, s] as const).filter(([, s]) => s !== 201);
    if (refused.length > 0)
      throw new Error(`POST /api/folders/create answered ${refused.map(([i, s]) => `${s} (change ${i})`).join(', ')}`);
    const receivedBy = result.latencies.map((perSub) => perSub.filter((l) => l !== null).length);
    const samples = result.latencies.flat().filter((l): l is number => l !== null);
    return {
      subscribers: options.subscribers,
      changes: options.changes,
      connectMs: result.connectMs,
      connectEachMs: result.connectEachMs,
      latencies: result.latencies,
      answeredMs: result.answeredMs,
      subscriberCpuMs: result.cpuMs,
      receivedBy,
      samples,
      missed: options.subscribers * options.changes - samples.length,
    };
  } finally {
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
    // Tidy up as far as it goes: a folder left behind costs nothing but a line in a listing.
    for (let i = 0; i < options.changes; i++) {
      const query = new URLSearchParams({ username: EVENTS_USER, folder: `${prefix}${i}`, permanent: 'true' });
      await request('POST', `${target.url}/api/folders/delete?${query}`, target.key).catch(() => undefined);
    }
  }
}

export async function eventsRow(b: Bench): Promise<Row> {
  const scenario = `The event stream: ${SUBSCRIBERS.toLocaleString('en-US')} subscribers each receive a change`;
  const target = `p99 ≤ ${GOAL_P99_MS} ms, none missed`;
  const rounds: FanoutResult[] = [];
  for (let round = 0; round < b.rounds; round++) {
    const r = await measureEventFanout(b.nimbus, { subscribers: SUBSCRIBERS, changes: CHANGES, log: b.log });
    rounds.push(r);
    b.log(
      `  round ${round + 1}: p50 ${fmt.ms(percentile(r.samples, 50))} p99 ${fmt.ms(percentile(r.samples, 99))} max ${fmt.ms(Math.max(...r.samples))}, missed ${r.missed}`,
    );
  }
  return fanoutRow(scenario, target, rounds);
}

/** The row for rounds of one fan-out measurement: percentiles over every (subscriber, change) pair of every round. */
export function fanoutRow(scenario: string, target: string, rounds: FanoutResult[]): Row {
  const all = rounds.flatMap((r) => r.samples);
  const missed = rounds.reduce((n, r) => n + r.missed, 0);
  const pairs = rounds.reduce((n, r) => n + r.subscribers * r.changes, 0);
  const p = (q: number) => percentile(all, q);
  const max = all.reduce((m, v) => Math.max(m, v), 0);
  const perRound = rounds.map((r) => `p99 ${fmt.ms(percentile(r.samples, 99))}`).join(', ');
  const ok = p(99) <= GOAL_P99_MS && missed === 0;
  const why = missed > 0 ? `${missed} of ${pairs} (subscriber, change) pairs never arrived` : `p99 ${fmt.ms(p(99))}`;
  return {
    scenario,
    nimbus: `p50 ${fmt.ms(p(50))}, p99 ${fmt.ms(p(99))}${missed > 0 ? `, ${missed} missed` : ''}`,
    baseline: '—',
    ratio: '—',
    target,
    verdict: verdict(ok),
    detail:
      `${why}. ${rounds.length} rounds of ${rounds[0]?.subscribers ?? 0} GET /api/events streams (admin key, one socket each, ` +
      `held by a child process that parses every message as EventSource would) and ${rounds[0]?.changes ?? 0} changes ` +
      `(POST /api/folders/create, one every ${SPACING_MS} ms, sent by the same child); latency from the request sent to ` +
      `each stream's folder.added message received. Over all ${all.length} pairs: p50 ${fmt.ms(p(50))}, p95 ${fmt.ms(p(95))}, ` +
      `p99 ${fmt.ms(p(99))}, max ${fmt.ms(max)}; per round ${perRound}; ${missed} missed. Streams opened in ` +
      `${fmt.list(
        rounds.map((r) => r.connectMs),
        fmt.ms,
      )} (median per stream ${fmt.ms(median(rounds.flatMap((r) => r.connectEachMs)))}).`,
  };
}
