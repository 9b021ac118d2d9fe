/**
 * Form uploads (issue 22): the big file sent as a multipart/form-data form (`curl -F`, what an
 * HTML form and DaneeCloud's client send), parsed by busboy on its way to the same upload path,
 * against the same file sent as the raw body (`curl -T`). Same daemon, same source in the page
 * cache, the order alternating by round: the ratio is what reading the form costs.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Bench } from '../lib/context.js';
import { UPLOAD_USER } from '../lib/dataset.js';
import { api } from '../lib/nimbus.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { uploadArgs } from './transfer.js';

const run = promisify(execFile);

/** One upload by curl: its status and bytes/s sent. */
async function send(args: string[]): Promise<{ status: number; bytesPerSec: number }> {
  const { stdout } = await run('curl', ['-s', '-S', '-o', '/dev/null', '-w', '%{http_code} %{size_upload} %{time_total}', ...args]);
  const [status, up, seconds] = stdout.trim().split(/\s+/).map(Number);
  return { status, bytesPerSec: up / seconds };
}

export async function formUploadRow(b: Bench): Promise<Row> {
  const src = b.ds.bigFilePath;
  const target = '≥ 0.8 × the raw body';
  const form: number[] = [];
  const raw: number[] = [];
  const once = async (kind: 'form' | 'raw', round: number) => {
    const name = `${kind}-${round}.bin`;
    const url = `${b.nimbus.url}/api/files/upload?username=${UPLOAD_USER}&file=${name}`;
    const args =
      kind === 'raw' ? uploadArgs(src, b.nimbus.key, url) : ['-H', 'Expect:', '-H', `API-Key: ${b.nimbus.key}`, '-F', `file=@${src}`, url];
    const x = await send(args);
    if (x.status !== 201) throw new Error(`${kind} upload answered ${x.status}`);
    (kind === 'form' ? form : raw).push(x.bytesPerSec);
    await api(b.nimbus, 'POST', '/api/files/delete', { username: UPLOAD_USER, file: name }, 200);
  };
  for (let round = 0; round < b.rounds; round++) {
    const order: ('form' | 'raw')[] = round % 2 === 0 ? ['form', 'raw'] : ['raw', 'form'];
    for (const kind of order) await once(kind, round);
    b.log(`  form upload round ${round + 1}: form ${fmt.mibps(form.at(-1)!)} | raw ${fmt.mibps(raw.at(-1)!)}`);
  }
  const ratio = median(form) / median(raw);
  return {
    scenario: `Form upload of a ${fmt.mib(b.ds.spec.bigFileBytes)} file`,
    nimbus: fmt.mibps(median(form)),
    baseline: `${fmt.mibps(median(raw))} (raw body, curl -T)`,
    ratio: fmt.ratio(ratio),
    target,
    verdict: verdict(ratio >= 0.8),
    detail: `curl -F file=@… (multipart/form-data, busboy) ${fmt.list(form, fmt.mibps)}; curl -T (octet-stream) ${fmt.list(raw, fmt.mibps)}; both fsynced before the 201, same source in the page cache, order alternating.`,
  };
}
