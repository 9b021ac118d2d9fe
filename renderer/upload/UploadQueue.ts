/**
 * The upload queue: each file gets an item with its own progress, a few upload at a
 * time, any can be cancelled, and a failed one keeps the daemon's message (a 507 says
 * the quota refused it; a 409 can be retried as a replacement). Pure logic: the actual
 * transfer is injected, so it is tested without a network.
 */
import { checkFileName } from '../../shared/validation';
import { ApiError, errorMessage, isAbort } from '../api/client';

export type UploadStatus = 'queued' | 'uploading' | 'done' | 'failed' | 'cancelled';

export interface UploadTarget {
  username: string;
  folder: string | null;
  name: string;
  overwrite: boolean;
}

export interface UploadItem extends UploadTarget {
  id: string;
  size: number;
  loaded: number;
  status: UploadStatus;
  /** The daemon's message (or the validation message) when failed. */
  error: string | null;
  /** HTTP status of the failure; 0 when the daemon was unreachable or the name was refused locally. */
  errorStatus: number | null;
}

export type Uploader = (target: UploadTarget, body: Blob, onProgress: (loaded: number) => void, signal: AbortSignal) => Promise<unknown>;

export interface UploadQueueOptions {
  concurrency?: number;
  onUploaded?: (item: UploadItem) => void;
  onFailed?: (item: UploadItem) => void;
}

export interface UploadSource {
  name: string;
  body: Blob;
  /** Its own folder (a folder upload's files go to many); else the batch's destination. */
  folder?: string | null;
  /** Replace the file of that name (a folder upload's answer to its conflicts). */
  overwrite?: boolean;
  /** Why it is not sent at all (a folder upload's bad folder name): failed at once with this message, not reported to `onFailed`. */
  refused?: string;
}

let nextId = 0;

export class UploadQueue {
  #items: readonly UploadItem[] = [];
  readonly #bodies = new Map<string, Blob>();
  readonly #controllers = new Map<string, AbortController>();
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
    const added: UploadItem[] = sources.map((source) => {
      const id = `upload-${++nextId}`;
      this.#bodies.set(id, source.body);
      const checked = checkFileName(source.name);
      const base: UploadItem = {
        id,
        username,
        folder: source.folder === undefined ? folder : source.folder,
        name: checked.ok ? checked.value : source.name,
        overwrite: source.overwrite ?? false,
        size: source.body.size,
        loaded: 0,
        status: 'queued',
        error: null,
        errorStatus: null,
      };
      const refusal = source.refused ?? (checked.ok ? null : `The name ${checked.message}`);
      return refusal === null ? base : { ...base, status: 'failed', error: refusal, errorStatus: 0 };
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
    for (const item of this.#items) if (!keep.includes(item)) this.#bodies.delete(item.id);
    this.#items = keep;
    this.#emit();
  }

  dismiss(id: string): void {
    const item = this.#find(id);
    if (!item || item.status === 'queued' || item.status === 'uploading') return;
    this.#bodies.delete(id);
    this.#items = this.#items.filter((other) => other.id !== id);
    this.#emit();
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
      const status = error instanceof ApiError ? error.status : 0;
      // The headline already says the name is taken; the detail says what to do about it.
      const message =
        error instanceof ApiError && error.code === 'file_exists' ? 'Choose Replace in Uploads to overwrite it.' : errorMessage(error);
      const failed = this.#update(item.id, { status: 'failed', error: message, errorStatus: status });
      if (failed) this.#options.onFailed?.(failed);
    } finally {
      this.#controllers.delete(item.id);
      this.#pump();
    }
  }
}

/** A short headline for a failure, ahead of the daemon's own message. */
export function failureHeadline(item: UploadItem): string {
  switch (item.errorStatus) {
    case 507:
      return 'Not enough storage space';
    case 409:
      return 'A file with this name already exists';
    case 413:
      return 'The file is too large';
    case 0:
      return item.error?.startsWith('The name') ? 'Invalid file name' : 'Upload failed';
    default:
      return 'Upload failed';
  }
}
