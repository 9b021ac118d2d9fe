/**
 * The soak test's checks (test/daemon/cluster-soak.test.ts), once the faults are over: every
 * answer was one a client can act on, and the data held on every daemon. Each returns the
 * problems it found (empty: it held), so that one run reports all of them.
 */
import { expect, vi } from 'vitest';
import { TEST_KEY } from '../daemon.js';
import type { SoakDaemon } from './cluster.js';
import { QUOTA_MIB, QUOTA_USER } from './faults.js';
import type { Outcome } from './recorder.js';
import { sha256, split, USER, type Ledger } from './workload.js';

/** Operations that need no bytes from the bucket: they keep answering 2xx while it is cut. */
const ROWS_ONLY = new Set(['list', 'rename', 'move', 'trash', 'share']);
/** Faults during which a download may break off midway (its daemon killed, its bucket cut). */
const CUTTING = new Set(['kill', 'bucket']);

/** Every answer through nginx: a status (no hang-up), never a 4xx or a 500 for a fault, rows-only operations 2xx while the bucket is cut. */
export function checkAnswers(outcomes: Outcome[]): string[] {
  const problems: string[] = [];
  for (const o of outcomes) {
    // The route names the file (historyOf then tells what else it got), the request id its daemon.
    const where = `${o.op} ${o.route} during ${o.phases.join(' → ')}: ${o.status}${o.detail ? ` ${o.detail}` : ''}${o.requestId ? ` (request ${o.requestId})` : ''}`;
    if (o.op === 'quota upload' || o.op.startsWith('bucket probe')) continue; // judged by their faults
    if (o.status === 'no answer') problems.push(`no HTTP answer: ${where}`);
    else if (o.status === 'cut') {
      if (!(o.op === 'download' && o.phases.some((p) => CUTTING.has(p)))) problems.push(`body cut: ${where}`);
    } else if (o.status >= 400 && o.status < 500) problems.push(`a 4xx for a server fault: ${where}`);
    else if (o.status === 500) problems.push(`500 internal: ${where}`);
    else if (o.status >= 300 && o.phases.every((p) => p === 'load')) problems.push(`failed with no fault running: ${where}`);
    else if (o.status >= 300 && ROWS_ONLY.has(o.op) && o.phases.every((p) => p === 'bucket')) {
      problems.push(`needs no bucket, yet failed while it was cut: ${where}`);
    }
  }
  return problems;
}

interface Listed {
  /** path → size */
  files: Map<string, number>;
}

async function get(d: SoakDaemon, route: string): Promise<Response> {
  return fetch(`${d.url}${route}`, { headers: { 'API-Key': TEST_KEY } });
}

async function listAll(d: SoakDaemon, folders: string[]): Promise<Listed> {
  const files = new Map<string, number>();
  for (const folder of [undefined, ...folders]) {
    const res = await get(d, `/api/files?username=${USER}&limit=100000${folder ? `&folder=${folder}` : ''}`);
    if (res.status !== 200) throw new Error(`daemon ${d.index} lists ${folder ?? 'the root'}: ${res.status} ${await res.text()}`);
    for (const f of ((await res.json()) as { files: { name: string; size: number }[] }).files) {
      files.set(folder ? `${folder}/${f.name}` : f.name, f.size);
    }
  }
  return { files };
}

/** What daemon `i` lists that daemon 0 does not, and the other way round (paths with their sizes). */
function listingDiff(zero: Listed, other: Listed, i: number): string {
  const only = (a: Listed, b: Listed) => [...a.files].filter(([p, size]) => b.files.get(p) !== size).map(([p, size]) => `${p} (${size})`);
  return `daemon ${i} lists what daemon 0 does not: ${only(other, zero).join(', ') || 'nothing'}; daemon 0 lists what daemon ${i} does not: ${only(zero, other).join(', ') || 'nothing'}`;
}

/**
 * Every daemon lists the same files (waited for: another daemon's last commits come through
 * LISTEN soon, not at once); each acknowledged path is listed, nothing gone comes back,
 * nothing unknown appears, each failed rename or move left exactly one of its paths, and every
 * listed file downloads whole from every daemon with a content the ledger allows.
 */
export async function checkData(daemons: SoakDaemon[], ledger: Ledger, folders: string[]): Promise<string[]> {
  const problems: string[] = [];
  const listings = await vi.waitFor(
    async () => {
      const all = await Promise.all(daemons.map((d) => listAll(d, folders)));
      const first = JSON.stringify([...all[0].files].sort());
      // Said as what each daemon lists that daemon 0 does not (and the other way), not as two long lists.
      for (const [i, l] of all.entries()) expect(JSON.stringify([...l.files].sort()), listingDiff(all[0], l, i)).toBe(first);
      return all;
    },
    { timeout: 30_000, interval: 200 },
  );
  const listed = listings[0].files;
  for (const p of ledger.present.keys()) if (!listed.has(p)) problems.push(`acknowledged, not listed: ${p}`);
  for (const p of ledger.gone) if (listed.has(p)) problems.push(`gone, listed again: ${p}`);
  for (const p of listed.keys()) {
    if (!ledger.present.has(p) && !ledger.undecided.has(p) && !ledger.gone.has(p) && !p.startsWith('probe'))
      problems.push(`listed, never written: ${p}`);
  }
  for (const [from, to] of ledger.eitherOr) {
    if (listed.has(from) === listed.has(to))
      problems.push(`a failed rename or move left ${listed.has(from) ? 'both' : 'neither'} of ${from}, ${to}`);
  }
  for (const d of daemons) {
    for (const p of listed.keys()) {
      const allowed = ledger.present.get(p) ?? ledger.undecided.get(p);
      if (!allowed) continue;
      const { folder, file } = split(p);
      const res = await get(d, `/api/files/download?username=${USER}&file=${file}${folder ? `&folder=${folder}` : ''}`);
      const hash = res.status === 200 ? sha256(new Uint8Array(await res.arrayBuffer())) : `status ${res.status}`;
      if (!allowed.has(hash)) problems.push(`daemon ${d.index} serves ${p} with a content never acknowledged (${hash})`);
    }
  }
  return problems;
}

/** The quota user's files, as each daemon lists them and counts them, within the quota. */
export async function checkQuota(daemons: SoakDaemon[]): Promise<string[]> {
  const problems: string[] = [];
  for (const d of daemons) {
    const res = await get(d, `/api/files?username=${QUOTA_USER}&limit=100000`);
    const files = ((await res.json()) as { files: { size: number }[] }).files;
    const total = files.reduce((sum, f) => sum + f.size, 0);
    if (total > QUOTA_MIB * 1024 * 1024) problems.push(`daemon ${d.index}: ${QUOTA_USER} holds ${total} bytes, over ${QUOTA_MIB} MiB`);
  }
  return problems;
}
