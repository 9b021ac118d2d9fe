/** A daemon's first load of the database into its Store (follower.ts reads the rows). */
import type { StoreHost } from '../backend.js';
import { COLLECTIONS, type CollectionName } from '../collections.js';
import type { DbData } from '../schema.js';
import type { KnownKeys } from './writer.js';

/** Every table's rows, by collection then key, read in one snapshot. */
export type Rows = Map<CollectionName, Map<string, unknown>>;

/**
 * The first load, into the new Store's empty Maps: each record goes in as read, untracked
 * (applyRemote), without the deep copy replaceAll makes of data a caller may still hold —
 * these records were just parsed from the rows and nothing else has them. That copy was
 * ~450 ms of CPU at start-up with 100,000 file rows (structuredClone, measured alone).
 */
export function loadFresh(host: StoreHost, known: KnownKeys, all: Rows): void {
  if (COLLECTIONS.some((collection) => host.map(collection).size > 0)) {
    const data = Object.fromEntries(COLLECTIONS.map((c) => [c, [...all.get(c)!.values()]])) as unknown as DbData;
    data.schema = 1;
    host.replaceAll(data);
    for (const collection of COLLECTIONS) known[collection] = new Set(all.get(collection)!.keys());
    return;
  }
  for (const collection of COLLECTIONS) {
    const rows = all.get(collection)!;
    for (const [key, data] of rows) host.applyRemote(collection, key, data);
    host.map(collection).takeDirty();
    known[collection] = new Set(rows.keys());
  }
}
