/** A set of listeners told one value at a time; one that throws does not keep the others (or the caller's bookkeeping) from running. */
export class Listeners<T> {
  readonly #fns = new Set<(value: T) => void>();

  constructor(private readonly what: string) {}

  /** Adds `fn`; returns its unsubscribe. */
  add(fn: (value: T) => void): () => void {
    this.#fns.add(fn);
    return () => this.#fns.delete(fn);
  }

  notify(value: T): void {
    for (const fn of this.#fns) {
      try {
        fn(value);
      } catch (err) {
        process.emitWarning(`A ${this.what} listener failed: ${(err as Error).stack ?? String(err)}`);
      }
    }
  }
}
