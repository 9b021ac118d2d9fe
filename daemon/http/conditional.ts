/**
 * Conditional and ranged answers for a file's bytes (RFC 9110 §13 and §14), through the
 * ecosystem's small parsers: `etag` names the bytes, `fresh` decides a 304, `range-parser`
 * reads Range. Downloads and share links (daemon/http/download.ts) answer through here.
 */
import etag from 'etag';
import fresh from 'fresh';
import type { Context } from 'koa';
import parseRange from 'range-parser';
import type { OpenedFile } from '../storage/file-storage.js';

/** What names the bytes a response sends: its ETag and Last-Modified header values. */
export interface Validators {
  etag: string;
  lastModified: string;
}

/**
 * The validators of an opened file, from what the opened file itself reports, so they name the
 * very bytes streamed from it: on disk the fstat of the open handle (device, inode, size,
 * modification and change times to the nanosecond), for an object its immutable id and the
 * bucket's ETag (`OpenedFile.identity`). `etag()` hashes that identity (SHA-1, base64), so a
 * public link shows no device or inode number (Apache's inode ETags were CVE-2003-1418): ~3 µs
 * of the 300–600 µs of CPU a small download took, measured on the loaded 2-core test machine
 * (node:crypto's one-shot `hash()` would save ~1.5 µs of it). Not `etag(stats)`: its tag is
 * the size and the modification time in whole milliseconds, which a write of the same size
 * within the same millisecond keeps. Weak while the identity may not yet move with the
 * next write (`identityIsStrong`): If-Range never matches it then, If-None-Match still does.
 */
export function validatorsOf(opened: Pick<OpenedFile, 'identity' | 'identityIsStrong' | 'mtimeMs'>): Validators {
  return {
    // The weak tag hashes something else than the strong one will: a copy validated by it (which
    // a write within the same tick may have replaced) must not match the settled file (a 304).
    etag: opened.identityIsStrong ? etag(opened.identity) : etag(`${opened.identity}:unsettled`, { weak: true }),
    lastModified: new Date(opened.mtimeMs).toUTCString(),
  };
}

/**
 * Whether If-Match (strong comparison, lists, `*`) or, only without it, If-Unmodified-Since
 * refuses the request (RFC 9110 §13.1.1, §13.1.4): a client that asks for these bytes only if
 * they are still the ones it knows gets a 412 instead of others. An unreadable date is ignored.
 */
export function preconditionFails(ctx: Context, validators: Validators): boolean {
  const ifMatch = ctx.get('If-Match');
  if (ifMatch) return !ifMatch.split(',').some((tag) => tag.trim() === '*' || isStrongMatch(tag.trim(), validators.etag));
  const unmodifiedSince = Date.parse(ctx.get('If-Unmodified-Since'));
  return !Number.isNaN(unmodifiedSince) && Date.parse(validators.lastModified) > unmodifiedSince;
}

/** RFC 9110 §8.8.3.2: two entity tags are the same and neither is weak. */
const isStrongMatch = (tag: string, current: string): boolean => tag === current && !tag.startsWith('W/');

/**
 * Whether the client's copy is current, for a 304: If-None-Match (weak comparison, lists,
 * `*`), or, only without it, If-Modified-Since. `fresh` is given those two headers alone: it
 * answers "stale" to any request with `Cache-Control: no-cache`, which fetch() (browsers and
 * Node's alike) adds to every request that carries a conditional header, so no fetch() would
 * ever get its 304. That directive asks caches to validate with the origin, which is what this
 * is; RFC 9110 §13.1.2 has the origin answer a matching If-None-Match with 304. A forced reload
 * sends no validator at all and gets the bytes.
 */
export function isNotModified(ctx: Context, validators: Validators): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const { 'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince } = ctx.req.headers;
  if (ifNoneMatch === undefined && ifModifiedSince === undefined) return false;
  return fresh(
    { 'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince },
    { etag: validators.etag, 'last-modified': validators.lastModified },
  );
}

/** An inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The one range to send of a file of `size` bytes: null for the whole file, 'unsatisfiable'
 * for a 416. A Range whose If-Range names other bytes is ignored (the whole new file, never new
 * bytes spliced onto the client's old ones), and so is one that is malformed, of another unit,
 * or of several ranges apart (RFC 9110 §14.2 lets a server send the whole file instead of
 * multipart/byteranges); several that overlap or touch are sent as the one they make.
 */
export function rangeToSend(ctx: Context, size: number, validators: Validators): ByteRange | null | 'unsatisfiable' {
  const header = ctx.get('Range');
  if (!header || !ifRangeHolds(ctx.get('If-Range'), validators)) return null;
  const ranges = parseRange(size, clampSuffixes(header, size), { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  return { start: ranges[0].start, end: ranges[0].end };
}

/**
 * If-Range (RFC 9110 §13.1.5), true when absent. An entity tag compares strongly: a weak one,
 * the client's or ours, never matches. A date matches only a Last-Modified of exactly that
 * second; RFC 9110 §8.8.2.2 has the client send one only when its answer's Date was at least a
 * second later (a date is a weak validator otherwise). Anything else is no match.
 */
function ifRangeHolds(header: string, validators: Validators): boolean {
  if (!header) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return isStrongMatch(value, validators.etag);
  const date = Date.parse(value);
  return !Number.isNaN(date) && date === Date.parse(validators.lastModified);
}

/**
 * range-parser 1.3.0 refuses a suffix longer than the file (`bytes=-500` of 100 bytes) as
 * unsatisfiable, where RFC 9110 §14.1.2 sends the whole file (fixed upstream in
 * jshttp/range-parser#66, after 1.3.0): such a suffix is shortened to the file's size first.
 */
function clampSuffixes(header: string, size: number): string {
  return header.replace(/([=,]\s*)-(\d+)/g, (spec, lead: string, length: string) => (Number(length) > size ? `${lead}-${size}` : spec));
}
