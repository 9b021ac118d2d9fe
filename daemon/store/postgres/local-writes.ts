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
 * committed, and a key left alone is read again by a read that begins after its change-set
 * ended: the snapshot left alone may have been taken after this daemon's commit reached the
 * database and before its answer came back, and hold another daemon's later change.
 */
import type { ChangeSet } from '../backend.js';
import type { CollectionName } from '../collections.js';

/** A record's address: what a read needs to read it again. */
export type RecordKey = { collection: CollectionName; key: string };

const keyOf = (collection: string, key: string) => `${collection}\0${key}`;

export class LocalWrites {
  /** Advances at every change-set's end. */
  #clock = 0;
  /** Change-sets in flight per key (a key may be in two queued change-sets). */
  readonly #inFlight = new Map<string, number>();
  /** When each key's last change-set ended, for the keys that ended since the current read began. */
  readonly #endedAt = new Map<string, number>();
  /** Keys a read left alone while they were in flight: read again when their change-set ends. */
  readonly #skippedInFlight = new Map<string, RecordKey>();
  /** Keys a read left alone because their change-set ended after it began: read again at once. */
  readonly #skippedEnded = new Map<string, RecordKey>();

  /** A change-set taken from the Maps, about to be written. */
  begin(changes: ChangeSet): void {
    for (const { collection, key } of changes) {
      const k = keyOf(collection, key);
      this.#inFlight.set(k, (this.#inFlight.get(k) ?? 0) + 1);
    }
  }

  /** A change-set written or refused: its keys count as ended now. Returns those a read left alone meanwhile, to read again. */
  end(changes: ChangeSet): RecordKey[] {
    const at = ++this.#clock;
    const again: RecordKey[] = [];
    for (const { collection, key } of changes) {
      const k = keyOf(collection, key);
      const left = (this.#inFlight.get(k) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(k, left);
      else this.#inFlight.delete(k);
      this.#endedAt.set(k, at);
      if (left <= 0 && this.#skippedInFlight.delete(k)) again.push({ collection, key });
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

  /**
   * Like newerThan, for a read about to apply the key, and remembers to read it again: once its
   * change-set ends (in flight), or right after this read (ended meanwhile). Left alone, a key
   * must be read again: the snapshot may as well have been taken after this daemon's commit, and
   * hold another daemon's later change (whose notice was this very read).
   */
  leaveAlone(collection: CollectionName, key: string, since: number): boolean {
    const k = keyOf(collection, key);
    if (this.#inFlight.has(k)) {
      this.#skippedInFlight.set(k, { collection, key });
      return true;
    }
    if ((this.#endedAt.get(k) ?? 0) <= since) return false;
    this.#skippedEnded.set(k, { collection, key });
    return true;
  }

  /** The keys the last read left alone whose change-sets had ended: to read again now (the read starts after their end). */
  takeReadAgain(): RecordKey[] {
    const again = [...this.#skippedEnded.values()];
    this.#skippedEnded.clear();
    return again;
  }
}
