/**
 * A Map that remembers which keys changed (docs/cluster.md, "The store"). Services change the
 * store's Maps as before; `set`, `delete` and `clear` add the keys they touch to a dirty set,
 * which the store takes at each `commit()` to form that call's change-set. Backends fill and
 * refresh the Map through `load` and `applyRemote`, which mark nothing: those records are
 * already in the database.
 *
 * Cost on the hot path is one boolean test and one Set add; a backend that writes snapshots
 * (the embedded db.json) turns tracking off, and then `set` is a plain Map set.
 */
/** What a Map changed since the last take: every key, and those deleted with deleteExisting (with the record as it was known). */
export interface DirtyKeys {
  keys: ReadonlySet<string>;
  mustExist: ReadonlyMap<string, unknown>;
}

export class TrackedMap<V> extends Map<string, V> {
  /** Whether changes are recorded (false: the backend writes whole snapshots). */
  tracking = true;
  #dirty = new Set<string>();
  /** Keys deleted with deleteExisting, each with the record as this daemon knew it. */
  #mustExist = new Map<string, V>();

  override set(key: string, value: V): this {
    // (Never constructed with entries: Map's constructor would call set() before #dirty exists.)
    if (this.tracking) this.#dirty.add(key);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    const existed = super.delete(key);
    if (existed && this.tracking) this.#dirty.add(key);
    return existed;
  }

  /**
   * Deletes a record only as this daemon knows it: when another daemon has deleted or changed
   * it meanwhile, the commit is refused (409) instead of deleting what it has become, or taking
   * its absence for the change wanted. For a file whose object goes with its row: an overwrite
   * elsewhere has made that object a version's, a rename elsewhere has made the row another
   * name's.
   */
  deleteExisting(key: string): boolean {
    const before = super.get(key);
    const existed = this.delete(key);
    if (existed && this.tracking) this.#mustExist.set(key, before as V);
    return existed;
  }

  override clear(): void {
    if (this.tracking) for (const key of this.keys()) this.#dirty.add(key);
    super.clear();
  }

  /** Marks a record changed in place (e.g. a field of the stored object was assigned). */
  touch(key: string): void {
    if (this.tracking) this.#dirty.add(key);
  }

  /** The keys changed since the last call (or since the Map was loaded), forgetting them. */
  takeDirty(): DirtyKeys {
    const taken = { keys: this.#dirty, mustExist: this.#mustExist };
    if (taken.keys.size > 0) this.#dirty = new Set();
    if (taken.mustExist.size > 0) this.#mustExist = new Map();
    return taken;
  }

  /** Replaces the whole content without recording anything (a backend's load or resync). */
  load(entries: Iterable<readonly [string, V]>): void {
    super.clear();
    for (const [key, value] of entries) super.set(key, value);
    this.#dirty.clear();
    this.#mustExist.clear();
  }

  /** Applies a record read from the database (undefined: it is gone) without recording it. */
  applyRemote(key: string, value: V | undefined): void {
    if (value === undefined) super.delete(key);
    else super.set(key, value);
  }
}
