/**
 * The file and folder rows of each trash item in object mode (rows.ts): a restore or a removal
 * finds an item's rows, a whole subtree's, without a scan of every row.
 */
interface Trashable {
  trashId: string | null;
}

export class TrashedRows {
  readonly #items = new Map<string, { files: Set<string>; folders: Set<string> }>();

  /** The ids of an item's rows, of each kind (empty when none). */
  ids(trashId: string): { files: ReadonlySet<string>; folders: ReadonlySet<string> } {
    return this.#items.get(trashId) ?? { files: new Set(), folders: new Set() };
  }

  /** Follows one row from its state before a change to its state after (undefined: no row). */
  track(kind: 'files' | 'folders', id: string, before: Trashable | undefined, after: Trashable | undefined): void {
    if (before?.trashId) {
      const ids = this.#items.get(before.trashId);
      ids?.[kind].delete(id);
      if (ids && ids.files.size === 0 && ids.folders.size === 0) this.#items.delete(before.trashId);
    }
    if (after?.trashId) {
      let ids = this.#items.get(after.trashId);
      if (!ids) this.#items.set(after.trashId, (ids = { files: new Set(), folders: new Set() }));
      ids[kind].add(id);
    }
  }
}
