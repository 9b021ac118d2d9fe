/**
 * Raw tus 1.0 requests to a daemon's /api/uploads/ (docs/uploads.md), over node:http through
 * `call` (test/helpers/accounts.ts), so every header is the test's: what a client nobody here
 * wrote would send, and the bad inputs it never would.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { TestDaemon } from './daemon.js';
import { call, type CallOptions, type Resp } from './accounts.js';

export const TUS = { 'Tus-Resumable': '1.0.0' };
export const OCTETS = { 'Content-Type': 'application/offset+octet-stream' };

/** An Upload-Metadata header: each value base64-encoded. */
export function metadata(pairs: Record<string, string>): string {
  return Object.entries(pairs)
    .map(([key, value]) => `${key} ${Buffer.from(value, 'utf8').toString('base64')}`)
    .join(',');
}

/** One tus request: Tus-Resumable 1.0.0 unless the headers say otherwise; the admin key unless `options` gives a credential. */
export function tus(
  t: TestDaemon,
  method: string,
  where: string,
  headers: Record<string, string>,
  options: CallOptions = {},
): Promise<Resp> {
  const cred = options.cookie !== undefined || options.key !== undefined ? {} : { key: t.key };
  return call(t, where, { method, ...cred, ...options, headers: { ...TUS, ...headers, ...options.headers } });
}

/** POST /api/uploads/: a new upload of `length` bytes to `meta` (username, filename, folder, overwrite), with a first part when given. */
export function create(
  t: TestDaemon,
  meta: Record<string, string>,
  length: number,
  first?: Buffer,
  options: CallOptions = {},
): Promise<Resp> {
  const headers: Record<string, string> = { 'Upload-Length': String(length), 'Upload-Metadata': metadata(meta) };
  return tus(t, 'POST', '/api/uploads/', first ? { ...headers, ...OCTETS } : headers, { ...options, body: first ?? '' });
}

/** PATCH bytes at an offset. */
export function patch(t: TestDaemon, location: string, offset: number, bytes: Buffer, options: CallOptions = {}): Promise<Resp> {
  return tus(t, 'PATCH', location, { ...OCTETS, 'Upload-Offset': String(offset) }, { ...options, body: bytes });
}

export const head = (t: TestDaemon, location: string, options: CallOptions = {}) => tus(t, 'HEAD', location, {}, options);
export const terminate = (t: TestDaemon, location: string, options: CallOptions = {}) => tus(t, 'DELETE', location, {}, options);

/** The Location of a creation's answer (throws unless it was 201). */
export function locationOf(res: Resp): string {
  if (res.status !== 201 || typeof res.headers.location !== 'string') throw new Error(`creation: ${res.status} ${res.text}`);
  return res.headers.location;
}

/** What the daemon keeps of unfinished uploads (`<data-dir>/tus`) and of bodies in flight (`<data-dir>/tmp`). */
export async function leftovers(t: TestDaemon): Promise<{ tus: string[]; tmp: string[] }> {
  const list = (dir: string) => readdir(path.join(t.dataDir, dir)).catch(() => [] as string[]);
  return { tus: (await list('tus')).sort(), tmp: await list('tmp') };
}
