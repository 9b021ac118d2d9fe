/**
 * A Map that remembers which keys changed (docs/cluster.md, "The store"). Services change the
 * store's Maps as before; `set`, `delete` and `clear` add the keys they touch to a dirty set,
 * which the store takes at each `commit()` to form that call's change-set. Backends fill and
 * refresh the Map through `load` and `applyRemote`, which mark nothing: those records are
 * already in the database.
 *
 * A Map that `comparesWrites` (object mode's file index: its rows are decided on what this
 * daemon knows of them) also keeps each changed record as it was before its first change, so
 * that the write applies only over that record: one another daemon changed meanwhile refuses
 * the commit (409) instead of being overwritten with a change decided on what it used to be.
 *
 * Cost on the hot path is one boolean test and one Set add; a backend that writes snapshots
 * (the embedded db.json) turns tracking off, and then `set` is a plain Map set.
 */
/** What a Map changed since the last take: every key, and the records as they were known before, for the writes that compare. */
export interface DirtyKeys {
  keys: ReadonlySet<string>;
  expected: ReadonlyMap<string, unknown>;
}

export class TrackedMap<V> extends Map<string, V> {
  /** Whether changes are recorded (false: the backend writes whole snapshots). */
  tracking = true;
  /** Whether updates (and deleteExisting) apply only over the record as this daemon knew it. */
  comparesWrites = false;
  #dirty = new Set<string>();
  /** The records as they were before their first change since the last take (comparesWrites). */
  #expected = new Map<string, V>();

  override set(key: string, value: V): this {
    // (Never constructed with entries: Map's constructor would call set() before #dirty exists.)
    if (this.tracking) {
      if (this.comparesWrites) this.#keepExpected(key);
      this.#dirty.add(key);
    }
    return super.set(key, value);
  }

  /** Deletes a record, whatever another daemon has made of it meanwhile (one already gone is what was wanted). */
  override delete(key: string): boolean {
    const existed = super.delete(key);
    if (existed && this.tracking) {
      this.#dirty.add(key);
      this.#expected.delete(key);
    }
    return existed;
  }

  /**
   * Deletes a record only as this daemon knew it (a Map that comparesWrites): when another
   * daemon has deleted or changed it meanwhile, the commit is refused (409) instead of
   * deleting what it has become. For a file whose object goes with its row: an overwrite
   * elsewhere has made that object a version's, a rename elsewhere the row another name's.
   */
  deleteExisting(key: string): boolean {
    if (!this.comparesWrites) throw new Error('deleteExisting needs a Map that compares writes');
    if (this.tracking) this.#keepExpected(key);
    const existed = super.delete(key);
    if (existed && this.tracking) this.#dirty.add(key);
    return existed;
  }

  override clear(): void {
    if (this.tracking) for (const key of this.keys()) this.#dirty.add(key);
    this.#expected.clear();
    super.clear();
  }

  /** Marks a record changed in place (e.g. a field of the stored object was assigned). */
  touch(key: string): void {
    if (this.comparesWrites) throw new Error('A Map that compares writes is changed by set, not in place');
    if (this.tracking) this.#dirty.add(key);
  }

  /** The keys changed since the last call (or since the Map was loaded), forgetting them. */
  takeDirty(): DirtyKeys {
    const taken = { keys: this.#dirty, expected: this.#expected };
    if (taken.keys.size > 0) this.#dirty = new Set();
    if (taken.expected.size > 0) this.#expected = new Map();
    return taken;
  }

  /** Replaces the whole content without recording anything (a backend's load or resync). */
  load(entries: Iterable<readonly [string, V]>): void {
    super.clear();
    for (const [key, value] of entries) super.set(key, value);
    this.#dirty.clear();
    this.#expected.clear();
  }

  /** Applies a record read from the database (undefined: it is gone) without recording it. */
  applyRemote(key: string, value: V | undefined): void {
    if (value === undefined) super.delete(key);
    else super.set(key, value);
  }

  /** The record as it is now, kept at its first change since the last take (a new record has none). */
  #keepExpected(key: string): void {
    if (this.#dirty.has(key)) return;
    const known = super.get(key);
    if (known !== undefined) this.#expected.set(key, known);
  }
}
