/** Names that a case-insensitive disk would take for one: their folded key, and lookups by it. */

/**
 * The key two names share when a case-insensitive disk (APFS, NTFS) would take them for
 * one. NFC first: APFS also ignores normalisation, and the API stores NFC. Then upper case,
 * as NTFS compares names through an upper-case table; that also joins `ς`, `σ` and `Σ`,
 * which lower case alone keeps apart. Then lower case, which joins the few pairs that agree
 * only in lower case (`ϴ` and `θ`), as APFS's case folding does. Where this is stricter
 * than a disk (`ß` and `SS`) it refuses a name the disk would have allowed, never the
 * reverse.
 */
export function foldName(name: string): string {
  // Most names are ASCII, where all of that is lower case alone (and five times faster).
  return ASCII.test(name) ? name.toLowerCase() : name.normalize('NFC').toUpperCase().toLowerCase();
}

const ASCII = /^[\x00-\x7f]*$/;

/** The names of one map by their folded key; `count` is how many names it holds, to see it is in step. */
interface FoldedNames {
  byFold: Map<string, string | string[]>;
  count: number;
}

/**
 * Finds names that differ only in case among the keys of a map (a directory's files or
 * folders, the users). The folded names of a map are built on its first lookup and kept in
 * step by `added`/`removed`, so a check in a folder of 100,000 files is one map lookup,
 * not a scan. A map changed without telling (a tree built by a scan, a caller that forgot)
 * holds a different number of names than was counted, and is folded afresh; a name gone
 * from the map is never reported.
 */
export class CaseFolds {
  readonly #folded = new WeakMap<Map<string, unknown>, FoldedNames>();

  /**
   * A key of `map` whose name differs from `name` only in case (or normalisation), other
   * than `name` itself and `except` (the entry being renamed to `name`).
   */
  twin(map: Map<string, unknown>, name: string, except?: string): string | undefined {
    const entry = this.#foldedOf(map).byFold.get(foldName(name));
    if (entry === undefined) return undefined;
    for (const other of typeof entry === 'string' ? [entry] : entry) {
      if (other !== name && other !== except && map.has(other)) return other;
    }
    return undefined;
  }

  /** Call after `name` was added to `map` (not when it was there already). */
  added(map: Map<string, unknown>, name: string): void {
    const folded = this.#folded.get(map);
    if (folded) addFolded(folded, name);
  }

  /** Call after `name` was deleted from `map`. */
  removed(map: Map<string, unknown>, name: string): void {
    const folded = this.#folded.get(map);
    if (folded) removeFolded(folded, name);
  }

  #foldedOf(map: Map<string, unknown>): FoldedNames {
    let folded = this.#folded.get(map);
    if (!folded || folded.count !== map.size) {
      folded = { byFold: new Map(), count: 0 };
      for (const name of map.keys()) addFolded(folded, name);
      this.#folded.set(map, folded);
    }
    return folded;
  }
}

function addFolded(folded: FoldedNames, name: string): void {
  const key = foldName(name);
  const entry = folded.byFold.get(key);
  // Most names are the only one with their key (a string, not an array), and many are their
  // own key (the name's string is kept, not a second copy of it).
  if (entry === undefined) folded.byFold.set(key === name ? name : key, name);
  else folded.byFold.set(key, typeof entry === 'string' ? [entry, name] : [...entry, name]);
  folded.count++;
}

function removeFolded(folded: FoldedNames, name: string): void {
  const key = foldName(name);
  const entry = folded.byFold.get(key);
  if (entry === undefined) return;
  if (typeof entry === 'string') {
    if (entry !== name) return;
    folded.byFold.delete(key);
  } else {
    const rest = entry.filter((other) => other !== name);
    if (rest.length === entry.length) return;
    folded.byFold.set(key, rest.length === 1 ? rest[0] : rest);
  }
  folded.count--;
}
