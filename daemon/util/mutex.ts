/**
 * Runs async functions one at a time per key. Mutations that await between their check
 * and their write (hash a password, rename on disk) take the lock of what they change,
 * so concurrent calls on the same user end in some serial order, never a lost update.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(keys: string | string[], fn: () => Promise<T>): Promise<T> {
    const list = [...new Set(Array.isArray(keys) ? keys : [keys])].sort();
    const before = Promise.all(list.map((k) => this.#tails.get(k)?.catch(() => undefined)));
    const result = before.then(fn);
    const tail = result.catch(() => undefined);
    for (const key of list) this.#tails.set(key, tail);
    void tail.then(() => {
      for (const key of list) if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
