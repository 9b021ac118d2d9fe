/**
 * The store's collections, in one table: each one's name (a db.json array, a PostgreSQL
 * table, one of the Store's Maps), the type of its records, the field that keys them, and
 * whether it is object mode's file index. The Store builds its Maps, snapshots and loads from
 * it, the backends write and read every collection through it, and `nimbus migrate` takes the
 * records it carries from it: a collection is added here, and nowhere else by name.
 */
import {
  SCHEMA_VERSION,
  type DbData,
  type StoredBadge,
  type StoredDavLock,
  type StoredDavProps,
  type StoredFile,
  type StoredFolder,
  type StoredKey,
  type StoredReset,
  type StoredRole,
  type StoredSession,
  type StoredShare,
  type StoredTrashItem,
  type StoredUser,
  type StoredVerification,
  type StoredVersion,
} from './schema.js';
import { TrackedMap } from './tracked-map.js';

interface CollectionSpec<R> {
  /** The record's key: the Map's key, and the `key` column in PostgreSQL. */
  key(record: R): string;
  /**
   * Object mode's file index (docs/cluster.md): empty in the other modes, and not carried by
   * `nimbus migrate`. Its Maps compare writes (tracked-map.ts).
   */
  fileIndex: boolean;
}

/** In the order of db.json and of a PostgreSQL write (docs/cluster.md, "The store"). */
export const COLLECTION_TABLE = {
  users: { key: (r: StoredUser) => r.username, fileIndex: false },
  roles: { key: (r: StoredRole) => r.name, fileIndex: false },
  shares: { key: (r: StoredShare) => r.token, fileIndex: false },
  keys: { key: (r: StoredKey) => r.hash, fileIndex: false },
  verifications: { key: (r: StoredVerification) => r.hash, fileIndex: false },
  sessions: { key: (r: StoredSession) => r.hash, fileIndex: false },
  resets: { key: (r: StoredReset) => r.hash, fileIndex: false },
  trash: { key: (r: StoredTrashItem) => r.id, fileIndex: false },
  // WebDAV's state (docs/webdav.md): locks by token, dead properties by resource.
  davLocks: { key: (r: StoredDavLock) => r.token, fileIndex: false },
  davProps: { key: (r: StoredDavProps) => r.id, fileIndex: false },
  // Files' earlier contents (docs/versions.md).
  versions: { key: (r: StoredVersion) => r.id, fileIndex: false },
  // Pictures uploaded for roles' badges (shared/badges.ts).
  badges: { key: (r: StoredBadge) => r.id, fileIndex: false },
  // Folders before files: another daemon applies a change-set's rows in this order, so a
  // subtree going into the trash leaves its index as one folder.removed, not one per file.
  folders: { key: (r: StoredFolder) => r.id, fileIndex: true },
  files: { key: (r: StoredFile) => r.id, fileIndex: true },
} as const satisfies Record<string, CollectionSpec<never>>;

type Table = typeof COLLECTION_TABLE;
export type CollectionName = keyof Table;
/** Each collection's record type. */
export type CollectionRecords = { [C in CollectionName]: Parameters<Table[C]['key']>[0] };
/** The collections `nimbus migrate` carries: all but the file index. */
export type RecordCollection = { [C in CollectionName]: Table[C]['fileIndex'] extends true ? never : C }[CollectionName];
/** One Map per collection, by name. */
export type CollectionMaps = { [C in CollectionName]: TrackedMap<CollectionRecords[C]> };

// db.json holds one array of each collection's records (schema.ts): the two cannot drift apart.
type Arrays = { [C in CollectionName]: CollectionRecords[C][] };
type SameCollections = [Required<Omit<DbData, 'schema'>>, Arrays] extends [Arrays, Required<Omit<DbData, 'schema'>>] ? true : never;
const sameCollections: SameCollections = true;
void sameCollections;

/** The persisted collections: a db.json array each, a PostgreSQL table each. */
export const COLLECTIONS: readonly CollectionName[] = Object.keys(COLLECTION_TABLE) as CollectionName[];

export const RECORD_COLLECTIONS = COLLECTIONS.filter((name): name is RecordCollection => !COLLECTION_TABLE[name].fileIndex);

export const recordKey = (collection: CollectionName, record: unknown): string =>
  (COLLECTION_TABLE[collection].key as (record: unknown) => string)(record);

/**
 * An empty Map for each collection. Object mode's rows are decided on what this daemon knows
 * of them, so their Maps compare writes (tracked-map.ts): written only over that.
 */
export const newCollectionMaps = (): CollectionMaps =>
  Object.fromEntries(
    COLLECTIONS.map((name) => {
      const map = new TrackedMap();
      map.comparesWrites = COLLECTION_TABLE[name].fileIndex;
      return [name, map];
    }),
  ) as CollectionMaps;

/** A copy-free picture of every Map, as db.json holds it. */
export function snapshotOf(maps: CollectionMaps): DbData {
  const data: Record<string, unknown> = { schema: SCHEMA_VERSION };
  for (const name of COLLECTIONS) data[name] = [...maps[name].values()];
  return data as unknown as DbData;
}

/** Replaces every Map's records (untracked) with a copy of `data`'s. */
export function loadAll(maps: CollectionMaps, data: DbData): void {
  const copy = structuredClone(data);
  for (const name of COLLECTIONS) {
    const records: unknown[] = copy[name] ?? [];
    (maps[name] as TrackedMap<unknown>).load(records.map((record) => [recordKey(name, record), record]));
  }
}

/** Whether a name (read from a notification, say) is a collection's. */
export const isCollection = (name: string): name is CollectionName => Object.hasOwn(COLLECTION_TABLE, name);
