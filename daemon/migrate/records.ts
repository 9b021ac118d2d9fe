/**
 * The records `nimbus migrate` carries over (everything in a store but object mode's file
 * index): read by key from a DbData or a Store, mirrored into a Store, and compared. The
 * comparison is on canonical JSON (keys sorted), since PostgreSQL's jsonb does not keep the
 * order in which a record's fields were written.
 */
import { COLLECTION_TABLE, COLLECTIONS, RECORD_COLLECTIONS, recordKey, type RecordCollection } from '../store/collections.js';
import type { Store } from '../store/store.js';
import { SCHEMA_VERSION, type DbData } from '../store/schema.js';
export type Records = Record<RecordCollection, Map<string, object>>;

export function recordsOfData(data: DbData): Records {
  const out = {} as Records;
  for (const name of RECORD_COLLECTIONS) {
    const list = (data[name] ?? []) as object[];
    out[name] = new Map(list.map((record) => [recordKey(name, record), record]));
  }
  return out;
}

/** The Maps of a store, by collection name. */
export function recordsOfStore(store: Store): Records {
  return Object.fromEntries(RECORD_COLLECTIONS.map((name) => [name, store.collection(name)])) as unknown as Records;
}

/** A DbData of a store's records (files and folders empty: the embedded mode keeps those on disk). */
export function dataOfStore(store: Store): DbData {
  const data: Record<string, unknown> = { schema: SCHEMA_VERSION };
  for (const name of COLLECTIONS) data[name] = COLLECTION_TABLE[name].fileIndex ? [] : [...store.collection(name).values()];
  return data as unknown as DbData;
}

/**
 * Makes the store's records those of `source` (adds, replaces, and removes what `source` does
 * not have): the store was checked to hold nothing else than this migration's own earlier run.
 */
export function mirrorRecords(source: Records, store: Store): void {
  const target = recordsOfStore(store);
  for (const name of RECORD_COLLECTIONS) {
    for (const [key, record] of target[name]) {
      if (source[name].has(key)) continue;
      if (name === 'shares') store.deleteShare(record as never);
      else if (name === 'trash') store.deleteTrash(record as never);
      else target[name].delete(key);
    }
    for (const [key, record] of source[name]) {
      const copy = structuredClone(record);
      if (canonical(target[name].get(key)) === canonical(copy)) continue;
      if (name === 'shares') store.putShare(copy as never, target.shares.get(key) as never);
      else if (name === 'trash') store.putTrash(copy as never);
      else target[name].set(key, copy);
    }
  }
}

/** Per collection, the count on each side, and every record missing, extra or different (by key). */
export function compareRecords(
  source: Records,
  target: Records,
): { counts: Record<RecordCollection, [number, number]>; mismatches: string[] } {
  const counts = {} as Record<RecordCollection, [number, number]>;
  const mismatches: string[] = [];
  for (const name of RECORD_COLLECTIONS) {
    const [a, b] = [source[name], target[name]];
    counts[name] = [a.size, b.size];
    for (const [key, record] of a) {
      const other = b.get(key);
      if (!other) mismatches.push(`${name} ${shortKey(key)}: missing in the target`);
      else if (canonical(other) !== canonical(record)) mismatches.push(`${name} ${shortKey(key)}: differs in the target`);
    }
    for (const key of b.keys()) if (!a.has(key)) mismatches.push(`${name} ${shortKey(key)}: in the target only`);
  }
  return { counts, mismatches };
}

/** Hashes are secrets' fingerprints: shown shortened, enough to find them. */
const shortKey = (key: string) => (/^[0-9a-f]{64}$/.test(key) ? `${key.slice(0, 12)}…` : JSON.stringify(key));

/** JSON with object keys sorted and undefined fields dropped (as jsonb and JSON.stringify drop them). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
