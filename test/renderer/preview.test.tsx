import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FileEntry } from '../../shared/types';
import { NimbusClient } from '../../renderer/api/client';
import { PreviewViewer } from '../../renderer/components/Preview/PreviewViewer';
import { previewKind } from '../../renderer/components/Preview/previewKind';
import { TEXT_PREVIEW_BYTES } from '../../renderer/components/Preview/textHead';
import { BASE, KEY, json, renderWithSession, stubFetch, type Route } from './harness';

const entry = (name: string, mimeType: string, folder: string | null = null, size = 1234): FileEntry => ({
  name,
  folder,
  size,
  modifiedAt: '2026-03-01T10:00:00.000Z',
  mimeType,
  shared: false,
  shareUrl: null,
});

// A listing as the explorer has it: previewable files with two that are not (data.bin, logo.svg).
const FILES = [
  entry('beach.png', 'image/png'),
  entry('notes.txt', 'text/plain'),
  entry('data.bin', 'application/octet-stream'),
  entry('logo.svg', 'image/svg+xml'),
  entry('report.pdf', 'application/pdf'),
  entry('clip.mp4', 'video/mp4'),
  entry('song.mp3', 'audio/mpeg'),
];

const inlineLink = (file: string, folder?: string) =>
  `${BASE}/api/files/download?${new URLSearchParams({ username: 'ana', file, ...(folder ? { folder } : {}), inline: 'true' })}`;

/** The explorer's side: holds the index and the open state, and a row that opened the viewer. */
function Host({ files, start, onClose = () => {} }: { files: FileEntry[]; start: number; onClose?: () => void }) {
  const [index, setIndex] = useState<number | null>(null);
  return (
    <>
      <button type="button" onClick={() => setIndex(start)}>
        Open row
      </button>
      {index === null ? null : (
        <PreviewViewer
          username="ana"
          files={files}
          index={index}
          onIndexChange={setIndex}
          onClose={() => {
            setIndex(null);
            onClose();
          }}
        />
      )}
    </>
  );
}

const TEXT_ROUTE: Route = () =>
  new Response('first line\nsecond line\nthird line', { status: 206, headers: { 'Content-Range': 'bytes 0-32/33' } });

/** Signed in with a session: plain links carry the cookie. */
function renderSignedIn(files: FileEntry[], start: number, routes: Record<string, Route> = {}) {
  const stub = stubFetch({ 'GET /api/files/download': TEXT_ROUTE, ...routes });
  const onClose = vi.fn();
  renderWithSession(<Host files={files} start={start} onClose={onClose} />, {
    client: new NimbusClient({ baseUrl: BASE, apiKey: null }),
    auth: 'session',
    me: { user: null, admin: false, canWrite: true },
  });
  return { ...stub, onClose };
}

async function open() {
  const opener = screen.getByRole('button', { name: 'Open row' });
  opener.focus();
  await userEvent.keyboard('{Enter}');
  return { opener, dialog: await screen.findByRole('dialog') };
}

beforeEach(() => {
  // jsdom has no object URLs; the key-in-the-page case makes them.
  URL.createObjectURL = vi.fn(() => 'blob:preview-1');
  URL.revokeObjectURL = vi.fn();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('previewKind', () => {
  it('previews what the daemon serves inline, never SVG', () => {
    expect(FILES.map((f) => previewKind(f))).toEqual(['image', 'text', null, null, 'pdf', 'video', 'audio']);
    expect(previewKind({ mimeType: 'text/html; charset=utf-8' })).toBe('text');
  });
});

describe('PreviewViewer: images and stepping', () => {
  it('shows an image from its inline link, named by the file', async () => {
    renderSignedIn(FILES, 0);
    const { dialog } = await open();
    expect(dialog).toHaveProperty('ariaModal', 'true');
    expect(within(dialog).getByRole('heading', { name: 'beach.png' })).toBeTruthy();
    const img = within(dialog).getByRole('img', { name: 'beach.png' });
    expect(img.getAttribute('src')).toBe(inlineLink('beach.png'));
    expect(within(dialog).getByText('1 of 5')).toBeTruthy();
  });

  it('steps through only the previewable files, by buttons and by arrow keys', async () => {
    renderSignedIn(FILES, 0);
    const { dialog } = await open();
    expect(within(dialog).getByRole('button', { name: 'Previous file' }).getAttribute('aria-disabled')).toBe('true');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next file' }));
    expect(within(dialog).getByRole('heading', { name: 'notes.txt' })).toBeTruthy();
    // data.bin and logo.svg are skipped.
    await userEvent.keyboard('{ArrowRight}');
    expect(within(dialog).getByRole('heading', { name: 'report.pdf' })).toBeTruthy();
    expect(within(dialog).getByText('3 of 5')).toBeTruthy();
    await userEvent.keyboard('{ArrowLeft}');
    expect(within(dialog).getByRole('heading', { name: 'notes.txt' })).toBeTruthy();
    await userEvent.keyboard('{ArrowRight}{ArrowRight}{ArrowRight}');
    expect(within(dialog).getByRole('heading', { name: 'song.mp3' })).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Next file' }).getAttribute('aria-disabled')).toBe('true');
    // At the end, → stays.
    await userEvent.keyboard('{ArrowRight}');
    expect(within(dialog).getByRole('heading', { name: 'song.mp3' })).toBeTruthy();
  });

  it('a file that cannot be previewed keeps its place among the others when opened', async () => {
    renderSignedIn(FILES, 2);
    const { dialog } = await open();
    expect(within(dialog).getByRole('heading', { name: 'data.bin' })).toBeTruthy();
    expect(within(dialog).getByText('3 of 6')).toBeTruthy();
    await userEvent.keyboard('{ArrowRight}');
    expect(within(dialog).getByRole('heading', { name: 'report.pdf' })).toBeTruthy();
  });

  it('shows no arrows for a single previewable file', async () => {
    renderSignedIn([entry('a.png', 'image/png'), entry('b.zip', 'application/zip')], 0);
    const { dialog } = await open();
    expect(within(dialog).queryByRole('button', { name: 'Next file' })).toBeNull();
    expect(within(dialog).queryByText(/of/)).toBeNull();
  });

  it('falls back to a card when the browser cannot show the image', async () => {
    renderSignedIn([entry('photo.heic', 'image/heic')], 0);
    const { dialog } = await open();
    fireEvent.error(within(dialog).getByRole('img', { name: 'photo.heic' }));
    expect(await within(dialog).findByText('This file cannot be shown here.')).toBeTruthy();
    expect(within(dialog).getAllByRole('link', { name: 'Download photo.heic' }).length).toBeGreaterThan(0);
  });
});

describe('PreviewViewer: PDF, media, other files', () => {
  it('shows a PDF in the browser’s viewer from the inline link', async () => {
    renderSignedIn(FILES, 4);
    const { dialog } = await open();
    const frame = dialog.querySelector('iframe')!;
    expect(frame.getAttribute('src')).toBe(inlineLink('report.pdf'));
    expect(frame.getAttribute('title')).toBe('report.pdf (PDF)');
  });

  it('plays video and audio from the inline link itself, so seeking asks for ranges', async () => {
    renderSignedIn(FILES, 5);
    const { dialog } = await open();
    const video = dialog.querySelector('video')!;
    expect(video.getAttribute('src')).toBe(inlineLink('clip.mp4'));
    expect(video.hasAttribute('controls')).toBe(true);
    await userEvent.keyboard('{ArrowRight}');
    const audio = dialog.querySelector('audio')!;
    expect(audio.getAttribute('src')).toBe(inlineLink('song.mp3'));
  });

  it('leaves ← and → to the video player while it has focus', async () => {
    renderSignedIn(FILES, 5);
    const { dialog } = await open();
    const video = dialog.querySelector('video')!;
    fireEvent.keyDown(video, { key: 'ArrowRight' });
    expect(within(dialog).getByRole('heading', { name: 'clip.mp4' })).toBeTruthy();
  });

  it('shows a card with icon, size, date and a plain Download link for anything else', async () => {
    renderSignedIn([entry('archive.zip', 'application/zip', 'Backups', 5 * 1024 * 1024)], 0);
    const { dialog } = await open();
    expect(within(dialog).getByText('There is no preview for this kind of file.')).toBeTruthy();
    const card = dialog.querySelector<HTMLElement>('.preview__card')!;
    expect(within(card).getByText(/^5(\.0)? Mi?B$/)).toBeTruthy();
    expect(within(card).getByText('Modified')).toBeTruthy();
    const link = within(dialog).getByRole('link', { name: 'Download archive.zip' });
    expect(link.getAttribute('href')).toBe(`${BASE}/api/files/download?username=ana&file=archive.zip&folder=Backups`);
    expect(link.getAttribute('download')).toBe('archive.zip');
  });
});

describe('PreviewViewer: text', () => {
  it('reads the first MiB with a Range request and numbers the lines', async () => {
    const { calls } = renderSignedIn(FILES, 1);
    const { dialog } = await open();
    const region = await within(dialog).findByRole('region', { name: 'Text of notes.txt' });
    expect(region.textContent).toContain('first line\nsecond line\nthird line');
    expect(region.querySelector('.preview__gutter')!.textContent).toBe('1\n2\n3');
    const request = calls.find((c) => c.url.pathname === '/api/files/download')!;
    expect(request.headers.get('Range')).toBe(`bytes=0-${TEXT_PREVIEW_BYTES - 1}`);
    expect(request.url.searchParams.get('inline')).toBe('true');
    expect(within(dialog).queryByRole('note')).toBeNull();
  });

  it('says when the text is cut, and drops a character split by the cut', async () => {
    // "é" is two bytes in UTF-8; the range ends between them.
    const bytes = new Uint8Array([...new TextEncoder().encode('abc\nd'), 0xc3]);
    renderSignedIn(FILES, 1, {
      'GET /api/files/download': () => new Response(bytes, { status: 206, headers: { 'Content-Range': `bytes 0-5/${5 * 1024 * 1024}` } }),
    });
    const { dialog } = await open();
    const note = await within(dialog).findByRole('note');
    expect(note.textContent).toMatch(/^Showing the first 6 B of 5(\.0)? Mi?B\./);
    const lines = within(dialog).getByRole('region', { name: 'Text of notes.txt' }).querySelector('.preview__lines')!;
    expect(lines.textContent).toBe('abc\nd');
  });

  it('says an empty file is empty (416 for the range)', async () => {
    renderSignedIn(FILES, 1, { 'GET /api/files/download': () => new Response('', { status: 416 }) });
    const { dialog } = await open();
    expect(await within(dialog).findByText('This file is empty.')).toBeTruthy();
  });

  it('shows a card with the reason when the text cannot be read', async () => {
    renderSignedIn(FILES, 1, { 'GET /api/files/download': () => json(404, { error: 'File not found', code: 'file_not_found' }) });
    const { dialog } = await open();
    expect(await within(dialog).findByText('This file cannot be shown here.')).toBeTruthy();
  });
});

describe('PreviewViewer: keyboard and focus', () => {
  it('Escape closes and gives focus back to what opened it', async () => {
    const { onClose } = renderSignedIn(FILES, 0);
    const { opener, dialog } = await open();
    expect(dialog.contains(document.activeElement)).toBe(true);
    await userEvent.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('keeps Tab inside the viewer', async () => {
    renderSignedIn(FILES, 0);
    const { dialog } = await open();
    for (let i = 0; i < 8; i += 1) {
      await userEvent.tab();
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
    for (let i = 0; i < 8; i += 1) {
      await userEvent.tab({ shift: true });
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
  });

  it('focus stays on Next when the last file is reached', async () => {
    renderSignedIn(FILES, 5);
    const { dialog } = await open();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next file' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next file' }));
    // At the end, Next is only marked disabled: the focus it has stays on it.
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Next file' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next file' }));
    expect(within(dialog).getByRole('heading', { name: 'song.mp3' })).toBeTruthy();
  });

  it('Escape and the arrows work while focus is outside the viewer', async () => {
    const { onClose } = renderSignedIn(FILES, 0);
    const { dialog } = await open();
    (document.activeElement as HTMLElement).blur();
    fireEvent.keyDown(document.body, { key: 'ArrowRight' });
    expect(within(dialog).getByRole('heading', { name: 'notes.txt' })).toBeTruthy();
    expect(dialog.contains(document.activeElement)).toBe(true);
    (document.activeElement as HTMLElement).blur();
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes itself when the file leaves the listing', async () => {
    const onClose = vi.fn();
    stubFetch({});
    const view = renderWithSession(<PreviewViewer username="ana" files={FILES} index={0} onIndexChange={() => {}} onClose={onClose} />);
    view.rerender(<PreviewViewer username="ana" files={[]} index={0} onIndexChange={() => {}} onClose={onClose} />);
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });
});

describe('PreviewViewer: a key held in the page', () => {
  it('fetches the bytes with the key into an object URL (a plain link could not send it)', async () => {
    const { calls } = stubFetch({ 'GET /api/files/download': () => new Response('png', { status: 200 }) });
    renderWithSession(<Host files={FILES} start={0} />);
    const { dialog } = await open();
    const img = await within(dialog).findByRole('img', { name: 'beach.png' });
    expect(img.getAttribute('src')).toBe('blob:preview-1');
    expect(calls[0].headers.get('API-Key')).toBe(KEY);
    expect(calls[0].url.searchParams.get('inline')).toBe('true');
    // Download cannot be a plain link either: it is a button that fetches with the key.
    expect(within(dialog).getByRole('button', { name: 'Download beach.png' })).toBeTruthy();
    await userEvent.keyboard('{Escape}');
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:preview-1');
  });
});
