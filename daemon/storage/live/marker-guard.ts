import { checkStorage } from '../availability.js';

/**
 * Removals wait this long, then are checked against the disk and the storage marker
 * together: a name removed and put back within it (an editor's save) is one change, and an
 * unmounted disk is not read as mass deletion.
 */
export const REMOVAL_BATCH_MS = 100;

export interface MarkerGuardOptions<T> {
  storageDir: string;
  /** The storage directory or its marker is gone: nothing of the batch is applied. */
  unavailable(reason: string): void;
  /** Confirms the batch against the disk and applies it; `current()` turns false once the guard is cleared. */
  confirm(batch: T[], current: () => boolean): Promise<void>;
  onError(err: unknown): void;
  batchMs?: number;
}

/**
 * The storage-marker check before any removal: removals are gathered for `batchMs`, then
 * applied only if the storage directory still holds its marker (availability.ts). An
 * unmounted or replaced storage directory never empties the index.
 */
export class MarkerGuard<T> {
  readonly #options: MarkerGuardOptions<T>;
  #batch: T[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** Replaced by clear(), so a flush in flight then applies nothing. */
  #round = {};

  constructor(options: MarkerGuardOptions<T>) {
    this.#options = options;
  }

  /** Queues a removal (null: only check that the storage directory is still there). */
  queue(removal: T | null): void {
    if (removal !== null) this.#batch.push(removal);
    this.#timer ??= setTimeout(
      () => void this.#flush().catch((err: unknown) => this.#options.onError(err)),
      this.#options.batchMs ?? REMOVAL_BATCH_MS,
    );
  }

  /** Drops what is queued (it is not trusted any more: a reconcile reads the disk). */
  clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#batch = [];
    this.#round = {};
  }

  async #flush(): Promise<void> {
    this.#timer = null;
    const batch = this.#batch;
    this.#batch = [];
    const round = this.#round;
    const current = () => round === this.#round;
    const status = await checkStorage(this.#options.storageDir);
    if (!current()) return;
    if (!status.ok) return this.#options.unavailable(status.reason);
    await this.#options.confirm(batch, current);
  }
}
