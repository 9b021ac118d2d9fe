/**
 * A file copied into a user's folder by another program (cp, a sync client), until the
 * API lists it: copyFile into <storage>/watch/inbox, then poll the folder's listing.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Bench } from '../lib/context.js';
import { WATCH_FOLDER, WATCH_USER } from '../lib/dataset.js';
import { api, request } from '../lib/nimbus.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';

const SAMPLES = 20;
const GIVE_UP_MS = 3000;

export async function watcherRow(b: Bench): Promise<Row> {
  const scenario = 'File copied into the storage dir, visible through the API';
  const target = 'p95 < 500 ms';
  const dash = await api<{ index: { watcher: string } }>(b.nimbus, 'GET', '/api/dash');
  const src = path.join(b.root, 'dropped.txt');
  writeFileSync(src, 'a file from another program\n'.repeat(40));
  const inbox = path.join(b.ds.storageDir, WATCH_USER, WATCH_FOLDER);
  const listing = `${b.nimbus.url}/api/folders/files?username=${WATCH_USER}&folder=${WATCH_FOLDER}`;
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const name = `dropped-${Date.now()}-${i}.txt`;
    const t0 = performance.now();
    copyFileSync(src, path.join(inbox, name));
    let seen = false;
    while (performance.now() - t0 < GIVE_UP_MS) {
      const reply = await request('GET', listing, b.nimbus.key);
      if (reply.status === 200 && reply.body.includes(`"name":"${name}"`)) {
        seen = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    if (!seen) {
      return {
        scenario,
        nimbus: `not seen within ${GIVE_UP_MS} ms`,
        baseline: '—',
        ratio: '—',
        target,
        verdict: 'missed',
        detail: `/api/dash reports watcher mode "${dash.index.watcher}": no file-system watcher is running, so a copied file appears only at the next full rescan (NIMBUS_RECONCILE_SECONDS, default 600 s) or POST /api/dash/rescan. ${times.length} of ${SAMPLES} samples seen before giving up.`,
      };
    }
    times.push(performance.now() - t0);
  }
  const p95 = percentile(times, 95);
  return {
    scenario,
    nimbus: `p95 ${fmt.ms(p95)} (median ${fmt.ms(median(times))})`,
    baseline: '—',
    ratio: '—',
    target,
    verdict: verdict(p95 < 500),
    detail: `${SAMPLES} files copied one at a time into ${WATCH_USER}/${WATCH_FOLDER}, the listing polled every 5 ms; watcher mode "${dash.index.watcher}"; samples ${fmt.list(times, fmt.ms)}.`,
  };
}
