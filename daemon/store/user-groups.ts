/**
 * A collection's records grouped by user, derived from its Map and kept in step by the Store
 * (its own writes, another daemon's, a reload): the WebDAV state is read on every write of a
 * user's files, and a user with none of it must pay one Map lookup, not a walk of everyone's.
 */
export class UserGroups<R extends { username: string }> {
  readonly #groups = new Map<string, Map<string, R>>();
  readonly #itemKey: (record: R) => string;

  /** `itemKey`: what tells a user's records apart (a lock's token, a resource's path). */
  constructor(itemKey: (record: R) => string) {
    this.#itemKey = itemKey;
  }

  /** The user's records by item key; undefined when they have none. */
  of(username: string): ReadonlyMap<string, R> | undefined {
    return this.#groups.get(username);
  }

  add(record: R): void {
    let mine = this.#groups.get(record.username);
    if (!mine) this.#groups.set(record.username, (mine = new Map()));
    mine.set(this.#itemKey(record), record);
  }

  /** Removes the record (if it is the one held under its item key). */
  remove(record: R): void {
    const mine = this.#groups.get(record.username);
    const key = this.#itemKey(record);
    if (!mine || mine.get(key) !== record) return;
    mine.delete(key);
    if (mine.size === 0) this.#groups.delete(record.username);
  }

  /** Replaces one record by another (either may be absent), as a remote change does. */
  replace(before: R | undefined, after: R | undefined): void {
    if (before) this.remove(before);
    if (after) this.add(after);
  }

  rebuild(records: Iterable<R>): void {
    this.#groups.clear();
    for (const record of records) this.add(record);
  }
}
