/**
 * Which keys this daemon is writing, or wrote while a read of the database was under way
 * (writer.ts stamps them; follower.ts asks). A read (a reload, a re-read, a resync) takes its
 * snapshot at one moment and applies it later; a commit of this daemon's own that the
 * snapshot did not see may land in between. Applied over the Map, the older row would undo
 * that commit here for good: this daemon skips notices of its own commits, so nothing would
 * ever bring the row back (the soak test saw a daemon never list a file the others listed).
 *
 * So a read leaves alone every key of a change-set in flight, and every key whose change-set
 * ended after the read began. Nothing is lost by that: the Map already holds what this daemon
 * committed, a failed change-set's keys are re-read after it ends, another daemon's later
 * commit sends a notice whose read begins after, and a key left alone while in flight is read
 * again once its change-set ends (another daemon may have written it after this daemon's
 * write reached the database and before its answer came back).
 */
import type { ChangeSet } from '../backend.js';

const keyOf = (collection: string, key: string) => `${collection}\0${key}`;

export class LocalWrites {
  /** Advances at every change-set's end. */
  #clock = 0;
  /** Change-sets in flight per key (a key may be in two queued change-sets). */
  readonly #inFlight = new Map<string, number>();
  /** When each key's last change-set ended, for the keys that ended since the current read began. */
  readonly #endedAt = new Map<string, number>();
  /** Keys a read left alone while they were in flight: read again when their change-set ends. */
  readonly #skipped = new Set<string>();

  /** A change-set taken from the Maps, about to be written. */
  begin(changes: ChangeSet): void {
    for (const { collection, key } of changes) {
      const k = keyOf(collection, key);
      this.#inFlight.set(k, (this.#inFlight.get(k) ?? 0) + 1);
    }
  }

  /** A change-set written or refused: its keys count as ended now. Returns those a read left alone meanwhile, to read again. */
  end(changes: ChangeSet): ChangeSet {
    const at = ++this.#clock;
    const again: ChangeSet = [];
    for (const change of changes) {
      const k = keyOf(change.collection, change.key);
      const left = (this.#inFlight.get(k) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(k, left);
      else this.#inFlight.delete(k);
      this.#endedAt.set(k, at);
      if (left <= 0 && this.#skipped.delete(k)) again.push(change);
    }
    return again;
  }

  /**
   * A read is about to take its snapshot: the moment to compare with. Reads run one at a time,
   * so what ended before this one began concerns no read any more and is forgotten.
   */
  readBegins(): number {
    this.#endedAt.clear();
    return this.#clock;
  }

  /** Whether a read that began at `since` must leave this key as the Map holds it. */
  newerThan(collection: string, key: string, since: number): boolean {
    const k = keyOf(collection, key);
    return this.#inFlight.has(k) || (this.#endedAt.get(k) ?? 0) > since;
  }

  /** Like newerThan, for a read about to apply the key: one left alone while in flight is read again at its end. */
  leaveAlone(collection: string, key: string, since: number): boolean {
    const k = keyOf(collection, key);
    if (this.#inFlight.has(k)) {
      this.#skipped.add(k);
      return true;
    }
    return (this.#endedAt.get(k) ?? 0) > since;
  }
}
