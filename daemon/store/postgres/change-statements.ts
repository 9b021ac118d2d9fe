/**
 * The SQL that writes change-sets (docs/cluster.md, "The store"): one statement per kind of
 * change and table, the rows passed as one JSON array. Pure functions of the change-sets; the
 * writer (writer.ts) decides when and inside which transaction they run.
 */
import type pg from 'pg';
import type { ChangeSet } from '../backend.js';
import { COLLECTIONS, type CollectionName } from '../collections.js';
import { CHANGES_CHANNEL } from './listener.js';

/** A change-set that cannot apply as it stands (thrown inside its savepoint). */
export class ChangeSetConflict extends Error {}

/**
 * Records that only follow another one (a file's versions follow its renames and moves): an
 * UPDATE of one that another daemon deleted meanwhile (its retention dropped that version) is
 * no conflict. The record is gone, as it would be after the move; refusing would answer the
 * rename 409 for a record its client never named (the three-daemon soak saw exactly that).
 * The writer reads such keys again after the write, so the Maps drop the ones found gone.
 */
export const FOLLOWERS: ReadonlySet<CollectionName> = new Set<CollectionName>(['versions']);

/** The keys of FOLLOWERS the change-sets update (to read again once written). */
export const followerUpdates = (changes: ChangeSet): ChangeSet =>
  changes.filter((change) => FOLLOWERS.has(change.collection) && change.existed && change.value !== undefined);

/**
 * The change-sets as one, when no key (of a collection) is in two of them; else null. Disjoint
 * change-sets written together leave the rows each would have left one after the other.
 */
export function mergeDisjoint(sets: ChangeSet[]): ChangeSet | null {
  if (sets.length === 1) return sets[0];
  const seen = new Set<string>();
  const merged: ChangeSet = [];
  for (const changes of sets) {
    for (const change of changes) {
      const id = `${change.collection}\0${change.key}`;
      if (seen.has(id)) return null;
      seen.add(id);
      merged.push(change);
    }
  }
  return merged;
}

/** The keys the change-sets wrote, by collection (for the NOTIFY). */
export function writtenKeys(sets: ChangeSet[]): Map<CollectionName, Set<string>> {
  const written = new Map<CollectionName, Set<string>>();
  for (const changes of sets) {
    for (const { collection, key } of changes) {
      let keys = written.get(collection);
      if (!keys) written.set(collection, (keys = new Set()));
      keys.add(key);
    }
  }
  return written;
}

/** Writes one change-set: DELETEs, then UPDATEs, then INSERTs (so a record may take a name another just freed). */
export async function applyChangeSet(client: pg.PoolClient, changes: ChangeSet): Promise<void> {
  const groups = groupChanges(changes);
  for (const kind of ['delete', 'deleteExisting', 'update', 'insert'] as const) {
    for (const collection of COLLECTIONS) {
      const group = groups.get(`${kind}:${collection}`);
      if (!group) continue;
      // One statement per kind and table, the rows passed as one JSON array: a rename that
      // touches 100,000 file rows is three round trips, not 100,000. (jsonb_to_recordset rather
      // than unnest of two arrays: the records are already JSON, and it parsed 100,000 rows
      // about 3× faster than pg's array literals here.)
      if (kind === 'delete') {
        // A row already deleted elsewhere is what this change wanted: not a conflict.
        await client.query(`DELETE FROM "${collection}" WHERE key = ANY($1::text[])`, [group.keys]);
      } else if (kind === 'deleteExisting') {
        const { rowCount } = await client.query(`DELETE FROM "${collection}" AS t USING ${ROWS} WHERE ${AS_KNOWN}`, [rowsJson(group)]);
        if (rowCount !== group.keys.length) throw new ChangeSetConflict(`${collection}: a record was deleted or changed elsewhere`);
      } else if (kind === 'update') {
        const { rowCount } = await client.query(`UPDATE "${collection}" AS t SET data = r.data FROM ${ROWS} WHERE ${AS_KNOWN}`, [
          rowsJson(group),
        ]);
        if (rowCount !== group.keys.length && !FOLLOWERS.has(collection))
          throw new ChangeSetConflict(`${collection}: a record was deleted or changed elsewhere`);
      } else {
        await client.query(`INSERT INTO "${collection}" (key, data) SELECT r.key, r.data FROM ${ROWS}`, [rowsJson(group)]);
      }
    }
  }
}

type Group = {
  kind: 'delete' | 'deleteExisting' | 'update' | 'insert';
  collection: CollectionName;
  keys: string[];
  /** Each key's record now (undefined: deleted), and as this daemon knew it (undefined: not compared), serialised. */
  data: (string | undefined)[];
  expected: (string | undefined)[];
};

/** The changes by kind and table. */
function groupChanges(changes: ChangeSet): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const change of changes) {
    const kind =
      change.value === undefined ? (change.expected !== undefined ? 'deleteExisting' : 'delete') : change.existed ? 'update' : 'insert';
    const id = `${kind}:${change.collection}`;
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { kind, collection: change.collection, keys: [], data: [], expected: [] }));
    group.keys.push(change.key);
    group.data.push(change.value as string | undefined);
    group.expected.push(change.expected);
  }
  return groups;
}

/**
 * The change-set and its NOTIFY as one statement, when it is one kind of change to one table
 * (null otherwise). An UPDATE that finds fewer rows than it names (one deleted elsewhere) must
 * write nothing: the statement then divides by zero, which aborts it whole, and the caller's
 * fallback (a savepoint per change-set) finds which change-set conflicts.
 */
export function oneStatement(changes: ChangeSet, notice: string): { text: string; values: unknown[] } | null {
  const groups = groupChanges(changes);
  if (groups.size !== 1) return null;
  const group = [...groups.values()][0];
  const { kind, collection, keys } = group;
  const notify = 'SELECT pg_notify($2, $3)';
  // Fewer rows than named must write nothing: the statement then divides by zero (see above).
  const notifyIfAllOfW = `${notify} WHERE 1 / (CASE WHEN (SELECT count(*) FROM w) = $4 THEN 1 ELSE 0 END) = 1`;
  if (kind === 'deleteExisting') {
    return {
      text: `WITH w AS (DELETE FROM "${collection}" AS t USING ${ROWS} WHERE ${AS_KNOWN} RETURNING 1) ${notifyIfAllOfW}`,
      values: [rowsJson(group), CHANGES_CHANNEL, notice, keys.length],
    };
  }
  if (kind === 'delete') {
    return {
      text: `WITH w AS (DELETE FROM "${collection}" WHERE key = ANY($1::text[])) ${notify}`,
      values: [keys, CHANGES_CHANNEL, notice],
    };
  }
  const rows = rowsJson(group);
  if (kind === 'insert') {
    return {
      text: `WITH w AS (INSERT INTO "${collection}" (key, data) SELECT r.key, r.data FROM ${ROWS}) ${notify}`,
      values: [rows, CHANGES_CHANNEL, notice],
    };
  }
  if (FOLLOWERS.has(collection)) {
    return {
      text: `WITH w AS (UPDATE "${collection}" AS t SET data = r.data FROM ${ROWS} WHERE t.key = r.key) ${notify}`,
      values: [rows, CHANGES_CHANNEL, notice],
    };
  }
  return {
    text: `WITH w AS (UPDATE "${collection}" AS t SET data = r.data FROM ${ROWS} WHERE ${AS_KNOWN} RETURNING 1) ${notifyIfAllOfW}`,
    values: [rows, CHANGES_CHANNEL, notice, keys.length],
  };
}

/** The rows of a statement, from its one parameter: `[{"key": …, "data": {…}, "expected": {…}}, …]`. */
const ROWS = 'jsonb_to_recordset($1::jsonb) AS r(key text, data jsonb, expected jsonb)';
/** A row is the one named and, where the change compares, still the record this daemon knew. */
const AS_KNOWN = 't.key = r.key AND (r.expected IS NULL OR t.data = r.expected)';

/** Builds ROWS' parameter from a group's records, already serialised (no second serialisation). */
function rowsJson({ keys, data, expected }: Group): string {
  const rows = keys.map((key, i) => {
    const record = data[i] === undefined ? '' : `,"data":${data[i]}`;
    const known = expected[i] === undefined ? '' : `,"expected":${expected[i]}`;
    return `{"key":${JSON.stringify(key)}${record}${known}}`;
  });
  return `[${rows.join(',')}]`;
}
