/**
 * A Map that counts its changes: `version` moves on every `set`, `delete` and `clear`, so
 * whatever was derived from it (a page of a folder's listing: services/folder-pages.ts) is
 * known to be current by one comparison, without a look at each entry. The count is the
 * Map's own, so no path that changes the Map can forget it.
 */
export class VersionedMap<K, V> extends Map<K, V> {
  /** Changes so far. (Never constructed with entries: Map's constructor would call set() before this field exists.) */
  version = 0;

  override set(key: K, value: V): this {
    this.version++;
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.version++;
    return super.delete(key);
  }

  override clear(): void {
    this.version++;
    super.clear();
  }
}
