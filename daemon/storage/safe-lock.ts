/**
 * Shared/exclusive locks by key. Work inside a user or folder (placing an upload, making
 * a folder) holds it shared, many at once; deleting or renaming the user or folder holds
 * it exclusively, so a delete waits for what is being placed and nothing is placed into
 * what is being deleted. A waiting exclusive holder goes before later shared ones.
 */
interface Entry {
  shared: number;
  exclusive: boolean;
  queue: { exclusive: boolean; grant: () => void }[];
}

export class SharedExclusiveLock {
  readonly #entries = new Map<string, Entry>();

  /** Holds every key (sorted, so two holders never wait on each other crosswise) while `fn` runs. */
  async run<T>(keys: string[], exclusive: boolean, fn: () => Promise<T>): Promise<T> {
    const list = [...new Set(keys)].sort();
    const held: string[] = [];
    try {
      for (const key of list) {
        await this.#acquire(key, exclusive);
        held.push(key);
      }
      return await fn();
    } finally {
      for (const key of held) this.#release(key, exclusive);
    }
  }

  #acquire(key: string, exclusive: boolean): Promise<void> {
    let entry = this.#entries.get(key);
    if (!entry) this.#entries.set(key, (entry = { shared: 0, exclusive: false, queue: [] }));
    const free = exclusive ? !entry.exclusive && entry.shared === 0 : !entry.exclusive;
    if (free && entry.queue.length === 0) {
      if (exclusive) entry.exclusive = true;
      else entry.shared++;
      return Promise.resolve();
    }
    return new Promise((resolve) => entry.queue.push({ exclusive, grant: resolve }));
  }

  #release(key: string, exclusive: boolean): void {
    const entry = this.#entries.get(key)!;
    if (exclusive) entry.exclusive = false;
    else entry.shared--;
    while (entry.queue.length > 0) {
      const next = entry.queue[0];
      if (next.exclusive ? entry.exclusive || entry.shared > 0 : entry.exclusive) break;
      entry.queue.shift();
      if (next.exclusive) entry.exclusive = true;
      else entry.shared++;
      next.grant();
      if (next.exclusive) break;
    }
    if (!entry.exclusive && entry.shared === 0 && entry.queue.length === 0) this.#entries.delete(key);
  }
}
