/**
 * Stores written by another version of Nimbus (issue 22, "Data loss"). A newer one's store (a
 * db.json with a higher `schema`, a database with a migration this code lacks) is refused at
 * open, before anything is written: this code would drop on its first write whatever it does
 * not understand. What a store of this schema may hold beyond what this code knows (a
 * collection added by a newer minor version or by hand) is carried through every write.
 */
import { COLLECTIONS } from './collections.js';
import { SCHEMA_VERSION } from './schema.js';

export class NewerStoreError extends Error {
  /** `what`: the store, as its owner would find it ("The store /data/db.json"). */
  constructor(what: string, found: number, known: number) {
    super(
      `${what} has schema ${found}; this Nimbus knows schema ${known} at most: it was written by a newer Nimbus; ` +
        'upgrade Nimbus or restore a backup. It was left untouched.',
    );
    this.name = 'NewerStoreError';
  }
}

/** Throws NewerStoreError when a parsed db.json declares a schema above this code's. */
export function refuseNewerDb(parsed: unknown, file: string): void {
  const schema = (parsed as { schema?: unknown } | null)?.schema;
  if (typeof schema === 'number' && schema > SCHEMA_VERSION) throw new NewerStoreError(`The store ${file}`, schema, SCHEMA_VERSION);
}

const KNOWN_FIELDS: ReadonlySet<string> = new Set(['schema', ...COLLECTIONS]);

/** The top-level fields of a parsed db.json that this code has no collection for, as found. */
export function unknownFields(parsed: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(parsed).filter(([name]) => !KNOWN_FIELDS.has(name)));
}
