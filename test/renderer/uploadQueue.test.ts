import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../renderer/api/client';
import { UploadQueue, failureHeadline, type Uploader, type UploadTarget } from '../../renderer/upload/UploadQueue';

interface Pending {
  target: UploadTarget;
  onProgress: (loaded: number) => void;
  signal: AbortSignal;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** An uploader the test drives by hand: each call waits until the test settles it. */
function manualUploader() {
  const pending: Pending[] = [];
  const uploader: Uploader = (target, _body, onProgress, signal) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ target, onProgress, signal, resolve, reject });
      signal.addEventListener('abort', () => reject(new DOMException('cancelled', 'AbortError')));
    });
  return { uploader, pending };
}

const blob = (size: number) => new Blob([new Uint8Array(size)]);
const statusOf = (queue: UploadQueue) => queue.getSnapshot().map((item) => item.status);

describe('UploadQueue', () => {
  it('tracks each upload’s own progress and marks it done', async () => {
    const { uploader, pending } = manualUploader();
    const uploaded = vi.fn();
    const queue = new UploadQueue(uploader, { onUploaded: uploaded });
    queue.add(
      [
        { name: 'a.txt', body: blob(100) },
        { name: 'b.txt', body: blob(50) },
      ],
      'ana',
      'Photos',
    );
    expect(statusOf(queue)).toEqual(['uploading', 'uploading']);
    expect(pending[0].target).toEqual({ username: 'ana', folder: 'Photos', name: 'a.txt', overwrite: false });

    pending[0].onProgress(40);
    expect(queue.getSnapshot()[0].loaded).toBe(40);
    expect(queue.getSnapshot()[1].loaded).toBe(0);

    pending[0].resolve();
    await vi.waitFor(() => expect(statusOf(queue)).toEqual(['done', 'uploading']));
    expect(queue.getSnapshot()[0].loaded).toBe(100);
    expect(uploaded).toHaveBeenCalledWith(expect.objectContaining({ name: 'a.txt', status: 'done' }));
  });

  it('runs at most `concurrency` uploads at once and starts the next when one ends', async () => {
    const { uploader, pending } = manualUploader();
    const queue = new UploadQueue(uploader, { concurrency: 2 });
    queue.add(
      ['1', '2', '3'].map((n) => ({ name: `${n}.bin`, body: blob(1) })),
      'ana',
      null,
    );
    expect(statusOf(queue)).toEqual(['uploading', 'uploading', 'queued']);
    pending[1].resolve();
    await vi.waitFor(() => expect(statusOf(queue)).toEqual(['uploading', 'done', 'uploading']));
    expect(pending).toHaveLength(3);
  });

  it('cancels a running upload by aborting its request', async () => {
    const { uploader, pending } = manualUploader();
    const failed = vi.fn();
    const queue = new UploadQueue(uploader, { concurrency: 1, onFailed: failed });
    const [first] = queue.add(
      [
        { name: 'big.iso', body: blob(10) },
        { name: 'next.txt', body: blob(1) },
      ],
      'ana',
      null,
    );
    queue.cancel(first);
    expect(pending[0].signal.aborted).toBe(true);
    await vi.waitFor(() => expect(statusOf(queue)).toEqual(['cancelled', 'uploading']));
    expect(failed).not.toHaveBeenCalled();
  });

  it('cancels a queued upload before it starts', () => {
    const { uploader, pending } = manualUploader();
    const queue = new UploadQueue(uploader, { concurrency: 1 });
    const [, second] = queue.add(
      [
        { name: 'a', body: blob(1) },
        { name: 'b', body: blob(1) },
      ],
      'ana',
      null,
    );
    queue.cancel(second);
    expect(statusOf(queue)).toEqual(['uploading', 'cancelled']);
    expect(pending).toHaveLength(1);
  });

  it('says what a quota refusal (507) needed and what was free, in the UI’s units, not the daemon’s words', async () => {
    const { uploader, pending } = manualUploader();
    const failed = vi.fn();
    const queue = new UploadQueue(uploader, { onFailed: failed });
    queue.add([{ name: 'movie.mkv', body: blob(10) }], 'ana', null);
    pending[0].reject(
      new ApiError(507, 'quota_exceeded', 'Storage quota exceeded for ana', null, { needed: 5_033_165, available: 4_404_019 }),
    );
    await vi.waitFor(() => expect(statusOf(queue)).toEqual(['failed']));
    const item = queue.getSnapshot()[0];
    expect(item.error).toBe('“movie.mkv” needs 4.8 MiB; 4.2 MiB free.');
    expect(item.errorStatus).toBe(507);
    expect(failureHeadline(item)).toBe('Not enough storage space');
    expect(failed).toHaveBeenCalledOnce();
  });

  it('adds nothing to the headline when a 507 does not say what was free', async () => {
    const { uploader, pending } = manualUploader();
    const queue = new UploadQueue(uploader);
    queue.add([{ name: 'movie.mkv', body: blob(10) }], 'ana', null);
    pending[0].reject(new ApiError(507, 'quota_exceeded', 'Storage quota exceeded for ana'));
    await vi.waitFor(() => expect(statusOf(queue)).toEqual(['failed']));
    expect(queue.getSnapshot()[0].error).toBe('');
  });

  it('retries a name clash (409) as a replacement', async () => {
    const { uploader, pending } = manualUploader();
    const queue = new UploadQueue(uploader);
    const [id] = queue.add([{ name: 'a.txt', body: blob(3) }], 'ana', null);
    pending[0].reject(new ApiError(409, 'file_exists', 'File already exists'));
    await vi.waitFor(() => expect(statusOf(queue)).toEqual(['failed']));
    expect(failureHeadline(queue.getSnapshot()[0])).toBe('A file with this name already exists');
    queue.retry(id, true);
    expect(pending[1].target.overwrite).toBe(true);
    pending[1].resolve();
    await vi.waitFor(() => expect(statusOf(queue)).toEqual(['done']));
  });

  it('refuses a name the daemon would refuse, without sending anything', () => {
    const { uploader, pending } = manualUploader();
    const failed = vi.fn();
    const queue = new UploadQueue(uploader, { onFailed: failed });
    queue.add([{ name: 'CON', body: blob(1) }], 'ana', null);
    expect(pending).toHaveLength(0);
    expect(queue.getSnapshot()[0]).toMatchObject({ status: 'failed', errorStatus: 0 });
    expect(queue.getSnapshot()[0].error).toMatch(/reserved/);
    expect(failed).toHaveBeenCalledOnce();
  });

  it('clears finished items but keeps running ones', async () => {
    const { uploader, pending } = manualUploader();
    const queue = new UploadQueue(uploader);
    queue.add(
      [
        { name: 'a', body: blob(1) },
        { name: 'b', body: blob(1) },
      ],
      'ana',
      null,
    );
    pending[0].resolve();
    await vi.waitFor(() => expect(statusOf(queue)).toEqual(['done', 'uploading']));
    queue.clearFinished();
    expect(queue.getSnapshot().map((item) => item.name)).toEqual(['b']);
  });

  it('notifies subscribers with a new snapshot on every change', () => {
    const { uploader } = manualUploader();
    const queue = new UploadQueue(uploader);
    const listener = vi.fn();
    const unsubscribe = queue.subscribe(listener);
    const before = queue.getSnapshot();
    queue.add([{ name: 'a', body: blob(1) }], 'ana', null);
    expect(listener).toHaveBeenCalled();
    expect(queue.getSnapshot()).not.toBe(before);
    unsubscribe();
  });
  it('sends each file of a folder upload into its own folder, replacing only where told, and fails a refused one at once', async () => {
    const { uploader, pending } = manualUploader();
    const failed = vi.fn();
    const queue = new UploadQueue(uploader, { concurrency: 5, onFailed: failed });
    queue.add(
      [
        { name: 'a.txt', body: blob(1), folder: 'trip' },
        { name: 'b.txt', body: blob(1), folder: 'trip/day 1', overwrite: true },
        { name: 'x.txt', body: blob(1), folder: 'trip/CON', refused: 'The name of the folder “CON” must not be a reserved device name' },
        { name: 'root.txt', body: blob(1) },
      ],
      'ana',
      'docs',
    );
    expect(pending.map((call) => [call.target.folder, call.target.name, call.target.overwrite])).toEqual([
      ['trip', 'a.txt', false],
      ['trip/day 1', 'b.txt', true],
      ['docs', 'root.txt', false],
    ]);
    const refused = queue.getSnapshot()[2];
    expect([refused.status, refused.folder, refused.errorStatus]).toEqual(['failed', 'trip/CON', 0]);
    expect(refused.error).toMatch(/reserved device name/);
    // The caller refused it and says so once for its batch: no report per file.
    expect(failed).not.toHaveBeenCalled();
  });
});
