import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
// The UI's strings, in English.
import '../../renderer/i18n';
import { ApiError } from '../../renderer/api/client';
import { UploadPanel } from '../../renderer/components/UploadPanel/UploadPanel';
import { UploadQueue, type Uploader } from '../../renderer/upload/UploadQueue';
import { UploadsContext } from '../../renderer/upload/uploadsContext';

afterEach(cleanup);

interface Call {
  onProgress: (loaded: number) => void;
  signal: AbortSignal;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function setup() {
  const calls: Call[] = [];
  const uploader: Uploader = (_target, _body, onProgress, signal) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ onProgress, signal, resolve, reject });
      signal.addEventListener('abort', () => reject(new DOMException('cancelled', 'AbortError')));
    });
  const queue = new UploadQueue(uploader);
  render(
    <UploadsContext.Provider value={queue}>
      <UploadPanel />
    </UploadsContext.Provider>,
  );
  return { queue, calls };
}

const blob = (size: number) => new Blob([new Uint8Array(size)]);

describe('UploadPanel', () => {
  it('shows nothing until something is uploaded', () => {
    setup();
    expect(screen.queryByRole('region', { name: 'Uploads' })).toBeNull();
  });

  it('gives each upload its own progress bar that fills as bytes go out', async () => {
    const { queue, calls } = setup();
    act(
      () =>
        void queue.add(
          [
            { name: 'a.bin', body: blob(200) },
            { name: 'b.bin', body: blob(100) },
          ],
          'ana',
          null,
        ),
    );
    const panel = screen.getByRole('region', { name: 'Uploads' });
    const barA = within(panel).getByRole('progressbar', { name: 'Upload of a.bin' });
    const barB = within(panel).getByRole('progressbar', { name: 'Upload of b.bin' });
    act(() => calls[0].onProgress(50));
    expect(barA.getAttribute('aria-valuenow')).toBe('25');
    expect(barB.getAttribute('aria-valuenow')).toBe('0');
    expect(within(panel).getByRole('heading').textContent).toBe('Uploading 2 files');
    await act(async () => calls[0].resolve());
    expect(barA.getAttribute('aria-valuenow')).toBe('100');
    expect(barA.getAttribute('aria-valuetext')).toMatch(/^Uploaded/);
  });

  it('cancels one upload with its own button', async () => {
    const { queue, calls } = setup();
    act(
      () =>
        void queue.add(
          [
            { name: 'a.bin', body: blob(10) },
            { name: 'b.bin', body: blob(10) },
          ],
          'ana',
          null,
        ),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Cancel upload of b.bin' }));
    expect(calls[1].signal.aborted).toBe(true);
    expect(calls[0].signal.aborted).toBe(false);
    expect(screen.getByRole('progressbar', { name: 'Upload of b.bin' }).getAttribute('aria-valuetext')).toBe('Cancelled');
    expect(screen.queryByRole('button', { name: 'Cancel upload of b.bin' })).toBeNull();
  });

  it('says plainly when quota refused an upload, with what it needed and what was free', async () => {
    const { queue, calls } = setup();
    act(() => void queue.add([{ name: 'movie.mkv', body: blob(10) }], 'ana', null));
    const room = { needed: 10, available: 0 };
    await act(async () =>
      calls[0].reject(new ApiError(507, 'quota_exceeded', 'Storage quota exceeded: 0.9 MB of 1.0 MB used', null, room)),
    );
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('Not enough storage space: “movie.mkv” needs 10 B; 0 B free.');
    expect(screen.getByRole('heading').textContent).toBe('1 upload failed');
  });

  it('offers to replace a file that already exists (409)', async () => {
    const { queue, calls } = setup();
    act(() => void queue.add([{ name: 'a.txt', body: blob(1) }], 'ana', null));
    await act(async () => calls[0].reject(new ApiError(409, 'file_exists', 'File already exists')));
    await userEvent.click(screen.getByRole('button', { name: 'Replace' }));
    expect(calls).toHaveLength(2);
    expect(queue.getSnapshot()[0]).toMatchObject({ status: 'uploading', overwrite: true });
  });
  it('shows a total over the batch, files and bytes, besides each file’s own bar and folder', async () => {
    const { queue, calls } = setup();
    act(
      () =>
        void queue.add(
          [
            { name: 'a.bin', body: blob(200), folder: 'trip' },
            { name: 'a.bin', body: blob(100), folder: 'trip/day 1' },
            { name: 'CON', body: blob(100), folder: 'trip' },
          ],
          'ana',
          null,
        ),
    );
    const panel = screen.getByRole('region', { name: 'Uploads' });
    const total = within(panel).getByRole('progressbar', { name: 'Total upload progress' });
    act(() => calls[0].onProgress(100));
    expect(total.getAttribute('aria-valuenow')).toBe('33');
    expect(within(panel).getByText('0 of 2 files · 100 B of 300 B')).toBeTruthy();
    await act(async () => calls[1].resolve());
    expect(within(panel).getByText('1 of 2 files · 200 B of 300 B')).toBeTruthy();
    expect(within(panel).getByText('trip/day 1')).toBeTruthy();
  });
});
