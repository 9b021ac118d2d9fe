/**
 * JSON already encoded as UTF-8 bytes, for the long lists a handler answers pre-serialised
 * (a folder's files, search hits). Each entry's bytes are kept per file (services/records.ts)
 * and copied into one buffer here, with the list's brackets and commas.
 *
 * Why bytes and not a string: a listing of 10,000 files built as one string (a rope of
 * 10,000 cached entries) was flattened by `Buffer.byteLength`, scanned for its length and then
 * encoded again by the socket's write: 1.1 ms of a 4.7 ms request for `byteLength` alone, as
 * much again in `writev`, in the profile of the tree bench's listing at depth 10 (1.9 MB). The
 * same list copied from cached buffers into one `allocUnsafe` buffer takes 0.42 ms against
 * 2.35 ms for the string's build, length and encoding (bench/NOTES.md, issue 25).
 */
declare const JSON_OF: unique symbol;

export class JsonBytes<T> {
  /** What the bytes encode: a type only, so a handler's bytes still have to match its endpoint's response. */
  declare readonly [JSON_OF]: T;
  constructor(readonly bytes: Buffer) {}

  /** The value again (the DaneeCloud dialect reshapes a list it was given as bytes). */
  parse(): T {
    return JSON.parse(this.bytes.toString('utf8')) as T;
  }
}

/**
 * `{"<key>":[e0,e1,…]}` from each entry's JSON bytes, in one buffer: the caller vouches that
 * every entry is the JSON of one `T[key]` item.
 */
export function jsonListBytes<T>(key: string, entries: readonly Buffer[]): JsonBytes<T> {
  const head = `{${JSON.stringify(key)}:[`;
  const headLength = Buffer.byteLength(head);
  let length = headLength + 2 + Math.max(0, entries.length - 1);
  for (const entry of entries) length += entry.length;
  const out = Buffer.allocUnsafe(length);
  let at = out.write(head, 0, 'utf8');
  for (let i = 0; i < entries.length; i++) {
    if (i > 0) out[at++] = COMMA;
    at += entries[i].copy(out, at);
  }
  out[at++] = CLOSE_BRACKET;
  out[at] = CLOSE_BRACE;
  return new JsonBytes<T>(out);
}

const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
