/**
 * The soak test's load and its ledger (test/daemon/cluster-soak.test.ts). Workers, each with
 * its own files (names never reused) and its own folder, loop through nginx: uploads,
 * overwrites, renames, moves, copies, trash, shares, listings and downloads. Every answer is
 * recorded with the fault phase it started and ended in. The ledger keeps what the daemons
 * acknowledged: a 2xx makes a write certain; a request that failed (5xx, or no answer) leaves
 * its names undecided (it may or may not have happened), and the checks accept either.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Recorder } from './recorder.js';

export const USER = 'soak';
export const PASSWORD = 'Pw-soak-x7!q';
const SIZES = [1024, 16 * 1024, 200 * 1024, 1024 * 1024];

export const sha256 = (body: Uint8Array) => createHash('sha256').update(body).digest('hex');

export class Ledger {
  /** Paths (`name` or `folder/name`) that must be listed, each with the contents (sha256) it may hold. */
  readonly present = new Map<string, Set<string>>();
  /** Paths a failed request left undecided: listed or not, and if listed with one of these contents. */
  readonly undecided = new Map<string, Set<string>>();
  /** Paths acknowledged gone (trashed, renamed or moved away): never listed again. */
  readonly gone = new Set<string>();
  /** Renames and moves that failed: exactly one of the two paths holds the file. */
  readonly eitherOr: [string, string][] = [];
  /** Paths a share was asked for (a second one would be refused 409 already_shared); renames carry it. */
  readonly shared = new Set<string>();
  acknowledged = 0;

  /** A path the ledger has never seen (never reused: it makes every check unambiguous). */
  isNew(p: string): boolean {
    return !this.present.has(p) && !this.undecided.has(p) && !this.gone.has(p);
  }

  moveAway(from: string, to: string, ok: boolean): void {
    const hashes = this.present.get(from)!;
    this.present.delete(from);
    if (this.shared.has(from)) this.shared.add(to);
    if (ok) {
      this.acknowledged++;
      this.gone.add(from);
      this.present.set(to, hashes);
    } else {
      this.undecided.set(from, hashes);
      this.undecided.set(to, hashes);
      this.eitherOr.push([from, to]);
    }
  }
}

const ok = (status: number | string) => typeof status === 'number' && status >= 200 && status < 300;
const q = (params: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
/** `folder/name` → { folder, file }; `name` → { file }. */
export const split = (p: string) => (p.includes('/') ? { folder: p.split('/')[0], file: p.split('/')[1] } : { file: p });

/** One worker's loop: its files are `w<id>-<n>.bin`, its folder `f<id>`. Runs until `stopped()`. */
export async function runWorker(id: number, base: string, ledger: Ledger, rec: Recorder, stopped: () => boolean): Promise<void> {
  const folder = `f${id}`;
  let n = 0;
  let step = 0;
  const mine = () => [...ledger.present.keys()].filter((p) => split(p).file.startsWith(`w${id}-`));
  const pick = () => {
    const paths = mine();
    return paths.length > 0 ? paths[(step * 7919) % paths.length] : undefined;
  };
  const upload = async (p: string, overwrite: boolean) => {
    const body = new Uint8Array(randomBytes(SIZES[step % SIZES.length]));
    const hash = sha256(body);
    const { folder: f, file } = split(p);
    const res = await rec.request(
      overwrite ? 'overwrite' : 'upload',
      base,
      `/api/files/upload?${q({ username: USER, file, folder: f, overwrite: String(overwrite) })}`,
      { method: 'POST', body },
    );
    if (ok(res.status)) {
      ledger.acknowledged++;
      ledger.present.set(p, new Set([hash]));
    } else if (overwrite) ledger.present.get(p)!.add(hash);
    else ledger.undecided.set(p, new Set([hash]));
  };
  while (!stopped()) {
    step++;
    const kind = step % 10;
    const target = pick();
    if (kind <= 2 || target === undefined) {
      await upload(step % 3 === 0 ? `${folder}/w${id}-${n++}.bin` : `w${id}-${n++}.bin`, false);
    } else if (kind === 3) {
      await upload(target, true);
    } else if (kind === 4) {
      const { folder: f, file } = split(target);
      const to = f ? `${f}/w${id}-${n++}.bin` : `w${id}-${n++}.bin`;
      const res = await rec.request(
        'rename',
        base,
        `/api/files/rename?${q({ username: USER, file, folder: f, newname: split(to).file })}`,
        { method: 'POST' },
      );
      ledger.moveAway(target, to, ok(res.status));
    } else if (kind === 5) {
      const { folder: f, file } = split(target);
      const to = f ? file : `${folder}/${file}`;
      if (!ledger.isNew(to)) continue;
      const res = await rec.request('move', base, `/api/files/move?${q({ username: USER, file, folder: f, to: f ? '' : folder })}`, {
        method: 'POST',
      });
      ledger.moveAway(target, to, ok(res.status));
    } else if (kind === 6) {
      const { folder: f, file } = split(target);
      const to = f ? file : `${folder}/${file}`;
      if (!ledger.isNew(to)) continue;
      const res = await rec.request('copy', base, `/api/files/copy?${q({ username: USER, file, folder: f, to: f ? '' : folder })}`, {
        method: 'POST',
      });
      const hashes = ledger.present.get(target)!;
      if (ok(res.status)) {
        ledger.acknowledged++;
        ledger.present.set(to, new Set(hashes));
      } else ledger.undecided.set(to, new Set(hashes));
    } else if (kind === 7) {
      const { folder: f, file } = split(target);
      const res = await rec.request('trash', base, `/api/files/delete?${q({ username: USER, file, folder: f })}`, { method: 'POST' });
      const hashes = ledger.present.get(target)!;
      ledger.present.delete(target);
      if (ok(res.status)) {
        ledger.acknowledged++;
        ledger.gone.add(target);
      } else ledger.undecided.set(target, hashes);
    } else if (kind === 8) {
      const { folder: f, file } = split(target);
      if (ledger.shared.has(target)) continue;
      ledger.shared.add(target);
      await rec.request('share', base, `/api/files/share?${q({ username: USER, file, folder: f })}`, { method: 'POST' });
    } else {
      await rec.request('list', base, `/api/files?${q({ username: USER, folder: step % 2 === 0 ? folder : undefined })}`);
      const { folder: f, file } = split(target);
      await rec.request('download', base, `/api/files/download?${q({ username: USER, file, folder: f })}`);
    }
  }
}
