/**
 * The upload queue: each file gets an item with its own progress, a few upload at a
 * time, any can be cancelled, and a failed one keeps the daemon's message (a 507 says
 * the quota refused it; a 409 can be retried as a replacement). A copy kept beside a taken
 * name whose new name was taken meanwhile (a 409) goes up under the next free one. Pure logic:
 * the actual transfer and the folder's listing are injected, so it is tested without a network.
 */
import { ApiError, isAbort } from '../api/client';
import { failureDetail } from './failureWords';
import { newUploadItem, type UploadItem, type UploadSource, type UploadTarget } from './uploadItem';

export type { UploadItem, UploadSource, UploadStatus, UploadTarget } from './uploadItem';

export type Uploader = (target: UploadTarget, body: Blob, onProgress: (loaded: number) => void, signal: AbortSignal) => Promise<unknown>;

export interface UploadQueueOptions {
  concurrency?: number;
  onUploaded?: (item: UploadItem) => void;
  onFailed?: (item: UploadItem) => void;
  /**
   * A free name beside `item.besides` in the item's folder, asked when a kept-both copy's name
   * was taken after the listing it was chosen from (a 409: another window, another program).
   */
  freeName?: (item: UploadItem) => Promise<string>;
}

/** How often a kept-both copy looks for another free name before it fails as any 409 does. */
const MAX_RENAMES = 5;

export class UploadQueue {
  #items: readonly UploadItem[] = [];
  readonly #bodies = new Map<string, Blob>();
  readonly #controllers = new Map<string, AbortController>();
  readonly #renames = new Map<string, number>();
  readonly #listeners = new Set<() => void>();
  readonly #uploader: Uploader;
  readonly #concurrency: number;
  readonly #options: UploadQueueOptions;

  constructor(uploader: Uploader, options: UploadQueueOptions = {}) {
    this.#uploader = uploader;
    this.#concurrency = Math.max(1, options.concurrency ?? 3);
    this.#options = options;
  }

  /** The current items, a new array after every change (for useSyncExternalStore). */
  getSnapshot = (): readonly UploadItem[] => this.#items;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Queues files for one destination (or each for its own folder); returns the new items' ids. */
  add(sources: readonly UploadSource[], username: string, folder: string | null): string[] {
    const added = sources.map((source) => {
      const item = newUploadItem(source, username, folder);
      this.#bodies.set(item.id, source.body);
      return item;
    });
    this.#items = [...this.#items, ...added];
    this.#emit();
    // A source the caller refused is the caller's to report (once for its batch, not once per file).
    const reported = added.filter((item, i) => item.status === 'failed' && sources[i].refused === undefined);
    for (const item of reported) this.#options.onFailed?.(item);
    this.#pump();
    return added.map((item) => item.id);
  }

  /** Stops a queued or running upload; the daemon discards the partial file. */
  cancel(id: string): void {
    const item = this.#find(id);
    if (!item || (item.status !== 'queued' && item.status !== 'uploading')) return;
    this.#controllers.get(id)?.abort();
    this.#update(id, { status: 'cancelled' });
    this.#pump();
  }

  /** Tries a failed or cancelled upload again, optionally replacing an existing file. */
  retry(id: string, overwrite = false): void {
    const item = this.#find(id);
    if (!item || (item.status !== 'failed' && item.status !== 'cancelled')) return;
    this.#update(id, { status: 'queued', loaded: 0, error: null, errorStatus: null, overwrite: overwrite || item.overwrite });
    this.#pump();
  }

  /** Removes finished, failed and cancelled items from the list. */
  clearFinished(): void {
    const keep = this.#items.filter((item) => item.status === 'queued' || item.status === 'uploading');
    for (const item of this.#items) {
      if (keep.includes(item)) continue;
      this.#bodies.delete(item.id);
      this.#renames.delete(item.id);
    }
    this.#items = keep;
    this.#emit();
  }

  dismiss(id: string): void {
    const item = this.#find(id);
    if (!item || item.status === 'queued' || item.status === 'uploading') return;
    this.#bodies.delete(id);
    this.#renames.delete(id);
    this.#items = this.#items.filter((other) => other.id !== id);
    this.#emit();
  }

  /**
   * A kept-both copy refused because its free name was taken meanwhile: queued again under the
   * next free name (looked up afresh), at most MAX_RENAMES times. True when it was (or was
   * cancelled while looking), so the caller does not fail it.
   */
  async #renamedAfterRace(item: UploadItem, error: unknown, signal: AbortSignal): Promise<boolean> {
    const renames = this.#renames.get(item.id) ?? 0;
    if (!nameTaken(error) || item.besides === null || !this.#options.freeName || renames >= MAX_RENAMES) return false;
    let name: string;
    try {
      name = await this.#options.freeName(item);
    } catch {
      return false; // the listing failed: the 409 stands, with Replace in the panel
    }
    if (signal.aborted) return true;
    this.#renames.set(item.id, renames + 1);
    this.#update(item.id, { status: 'queued', name, loaded: 0 });
    return true;
  }

  #find(id: string): UploadItem | undefined {
    return this.#items.find((item) => item.id === id);
  }

  #update(id: string, patch: Partial<UploadItem>): UploadItem | undefined {
    let updated: UploadItem | undefined;
    this.#items = this.#items.map((item) => (item.id === id ? (updated = { ...item, ...patch }) : item));
    this.#emit();
    return updated;
  }

  #emit(): void {
    for (const listener of this.#listeners) listener();
  }

  #pump(): void {
    let running = this.#items.filter((item) => item.status === 'uploading').length;
    for (const item of this.#items) {
      if (running >= this.#concurrency) break;
      if (item.status !== 'queued') continue;
      running += 1;
      void this.#run(item);
    }
  }

  async #run(item: UploadItem): Promise<void> {
    const body = this.#bodies.get(item.id);
    if (!body) return;
    const controller = new AbortController();
    this.#controllers.set(item.id, controller);
    this.#update(item.id, { status: 'uploading', loaded: 0 });
    const target: UploadTarget = { username: item.username, folder: item.folder, name: item.name, overwrite: item.overwrite };
    try {
      await this.#uploader(
        target,
        body,
        (loaded) => {
          if (!controller.signal.aborted) this.#update(item.id, { loaded: Math.min(loaded, item.size) });
        },
        controller.signal,
      );
      if (controller.signal.aborted) return;
      const done = this.#update(item.id, { status: 'done', loaded: item.size });
      if (done) this.#options.onUploaded?.(done);
    } catch (error) {
      if (controller.signal.aborted || isAbort(error)) return;
      if (await this.#renamedAfterRace(item, error, controller.signal)) return;
      const status = error instanceof ApiError ? error.status : 0;
      const message = failureDetail(item, error);
      const failed = this.#update(item.id, { status: 'failed', error: message, errorStatus: status });
      if (failed) this.#options.onFailed?.(failed);
    } finally {
      this.#controllers.delete(item.id);
      this.#pump();
    }
  }
}

/** Whether the daemon refused the name as taken (by a file, or one differing only in case). */
const nameTaken = (error: unknown): boolean =>
  error instanceof ApiError && error.status === 409 && (error.code === 'file_exists' || error.code === 'name_case_conflict');

export { failureHeadline } from './failureWords';
