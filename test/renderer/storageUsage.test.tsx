import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import i18next from 'i18next';
import type { UsageDetail } from '../../shared/types';
import { StorageUsage } from '../../renderer/components/StorageUsage/StorageUsage';
import { kindSegments, quotaPicture } from '../../renderer/components/StorageUsage/usageSegments';
import { useLiveEvents } from '../../renderer/hooks/useLiveEvents';
import { json, renderWithSession, stubFetch } from './harness';

const MiB = 2 ** 20;

const usage = (over: Partial<UsageDetail> = {}): UsageDetail => ({
  usedBytes: 30 * MiB,
  maxBytes: 128 * MiB,
  overQuota: false,
  fileBytes: 20 * MiB,
  trashBytes: 10 * MiB,
  versionBytes: 0,
  fileCount: 3,
  byKind: { images: 10 * MiB, documents: 5 * MiB, media: 5 * MiB, other: 0 },
  ...over,
});

/** An event stream the test writes to. */
function eventStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => (controller = c) });
  return {
    response: () => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    send: (type: string, data: object) =>
      controller.enqueue(new TextEncoder().encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)),
  };
}

function WithLiveEvents({ username }: { username: string }) {
  useLiveEvents();
  return <StorageUsage username={username} />;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const bar = (name: RegExp) => screen.getByRole('img', { name });
const parts = (element: HTMLElement) => [...element.querySelectorAll('[data-part]')].map((part) => part.getAttribute('data-part'));

describe('the storage picture', () => {
  it('shows files, trash and free space against the quota, each part in words too', async () => {
    const { calls } = stubFetch({ 'GET /api/usage': () => json(200, { usage: usage() }) });
    renderWithSession(<StorageUsage username="ana" />);
    expect(await screen.findByRole('heading', { name: 'Storage' })).toBeTruthy();
    expect(screen.getByText('30 MiB of 128 MiB used', { exact: false }) ?? null).toBeTruthy();
    const quota = bar(/in files/);
    expect(quota.getAttribute('aria-label')).toBe('20 MiB in files, 10 MiB in the trash, 98 MiB free of 128 MiB');
    expect(parts(quota)).toEqual(['files', 'trash', 'free']);
    const legend = quota.parentElement!.querySelector('ul')!;
    expect(within(legend).getByText('Trash').parentElement!.textContent).toContain('10 MiB');
    expect(within(legend).getByText('Free').parentElement!.textContent).toContain('98 MiB');
    expect(calls.find((call) => call.url.pathname === '/api/usage')!.url.searchParams.get('username')).toBe('ana');
  });

  it('shows the files by kind, naming each kind with its size and share, and leaves out empty kinds from the bar', async () => {
    stubFetch({ 'GET /api/usage': () => json(200, { usage: usage() }) });
    renderWithSession(<StorageUsage username="ana" />);
    const kinds = await screen.findByRole('img', { name: /Files by kind/ });
    expect(kinds.getAttribute('aria-label')).toBe('Files by kind: Images 10 MiB, Documents 5 MiB, Audio and video 5 MiB, Other 0 B');
    expect(parts(kinds)).toEqual(['images', 'documents', 'media']);
    expect(screen.getByText('Images').parentElement!.textContent).toMatch(/10 MiB.*50\s?%/);
    expect(screen.getByText('3 files')).toBeTruthy();
  });

  it('says "Unlimited" and has no free part when the role has no quota', async () => {
    stubFetch({ 'GET /api/usage': () => json(200, { usage: usage({ maxBytes: -1 }) }) });
    renderWithSession(<StorageUsage username="ana" />);
    const quota = await screen.findByRole('img', { name: /in files/ });
    expect(parts(quota)).toEqual(['files', 'trash']);
    expect(screen.getByText(/Unlimited/)).toBeTruthy();
    expect(screen.queryByText('Free')).toBeNull();
  });

  it('marks where the quota ends when the user is over it', async () => {
    stubFetch({
      'GET /api/usage': () =>
        json(200, { usage: usage({ usedBytes: 160 * MiB, fileBytes: 150 * MiB, trashBytes: 10 * MiB, overQuota: true }) }),
    });
    renderWithSession(<StorageUsage username="ana" />);
    const quota = await screen.findByRole('img', { name: /over the quota/ });
    expect(quota.getAttribute('aria-label')).toBe('150 MiB in files, 10 MiB in the trash: 32 MiB over the quota of 128 MiB');
    expect(screen.getByText('Over quota by 32 MiB')).toBeTruthy();
    const mark = quota.querySelector<HTMLElement>('.usage-bar__mark')!;
    expect(mark.style.left).toBe('80%');
  });

  it('fetches the usage again when a file event or a trash event names the user', async () => {
    const stream = eventStream();
    let answer = usage();
    const { calls } = stubFetch({
      'GET /api/usage': () => json(200, { usage: answer }),
      'GET /api/events': () => stream.response(),
    });
    renderWithSession(<WithLiveEvents username="ana" />);
    await screen.findByRole('img', { name: '20 MiB in files, 10 MiB in the trash, 98 MiB free of 128 MiB' });
    // A delete: the file leaves the storage, its bytes go to the trash.
    answer = usage({ fileBytes: 10 * MiB, trashBytes: 20 * MiB });
    stream.send('file.removed', { username: 'ana', folder: null, file: 'a.jpg' });
    await screen.findByRole('img', { name: '10 MiB in files, 20 MiB in the trash, 98 MiB free of 128 MiB' });
    // Emptying the trash changes only the trash.
    answer = usage({ usedBytes: 10 * MiB, fileBytes: 10 * MiB, trashBytes: 0 });
    stream.send('trash.changed', { username: 'ana', folder: null, file: null });
    await screen.findByRole('img', { name: '10 MiB in files, 0 B in the trash, 118 MiB free of 128 MiB' });
    expect(calls.filter((call) => call.url.pathname === '/api/usage').length).toBe(3);
  });

  it('speaks the UI’s language, plurals included', async () => {
    stubFetch({ 'GET /api/usage': () => json(200, { usage: usage({ fileCount: 3 }) }) });
    await i18next.changeLanguage('cs');
    try {
      renderWithSession(<StorageUsage username="ana" />);
      expect(await screen.findByRole('heading', { name: 'Úložiště' })).toBeTruthy();
      expect(screen.getByText('3 soubory')).toBeTruthy();
      expect(screen.getByRole('img', { name: /v koši/ }).getAttribute('aria-label')).toBe(
        '20 MiB v souborech, 10 MiB v koši, 98 MiB volných z 128 MiB',
      );
    } finally {
      await i18next.changeLanguage('en');
    }
  });

  it('in a header (compact), shows the one bar and names the trash, without the kinds', async () => {
    stubFetch({ 'GET /api/usage': () => json(200, { usage: usage() }) });
    renderWithSession(<StorageUsage username="ana" compact />);
    expect(await screen.findByText('10 MiB in the trash')).toBeTruthy();
    expect(screen.getByRole('region', { name: 'Storage' })).toBeTruthy();
    expect(screen.queryByRole('img', { name: /Files by kind/ })).toBeNull();
    expect(screen.getByRole('img', { name: /in files/ }).getAttribute('title')).toBe(
      '20 MiB in files, 10 MiB in the trash, 98 MiB free of 128 MiB',
    );
  });

  it('says so when the usage cannot be loaded', async () => {
    stubFetch({ 'GET /api/usage': () => json(500, { error: 'x', code: 'internal' }) });
    renderWithSession(<StorageUsage username="ana" />);
    expect(await screen.findByText('Could not load storage use.')).toBeTruthy();
  });
});

describe('usage segments', () => {
  it('scales to the quota within it, to the use beyond it, and to the use without a quota', () => {
    expect(quotaPicture(usage()).segments.map((s) => s.fraction)).toEqual([20 / 128, 10 / 128, 98 / 128]);
    // Kept versions are their own part, shown only when there are some (docs/versions.md).
    const kept = quotaPicture(usage({ usedBytes: 40 * MiB, versionBytes: 10 * MiB }));
    expect(kept.segments.map((s) => [s.name, s.bytes])).toEqual([
      ['files', 20 * MiB],
      ['versions', 10 * MiB],
      ['trash', 10 * MiB],
      ['free', 88 * MiB],
    ]);
    expect(quotaPicture(usage()).segments.map((s) => s.name)).toEqual(['files', 'trash', 'free']);
    const over = quotaPicture(usage({ usedBytes: 256 * MiB, fileBytes: 256 * MiB, trashBytes: 0 }));
    expect(over.quotaMark).toBe(0.5);
    expect(over.overBy).toBe(128 * MiB);
    const unlimited = quotaPicture(usage({ maxBytes: -1 }));
    expect(unlimited.segments.map((s) => s.name)).toEqual(['files', 'trash']);
    expect(unlimited.segments.map((s) => s.fraction)).toEqual([2 / 3, 1 / 3]);
    expect(quotaPicture(usage({ usedBytes: 0, fileBytes: 0, trashBytes: 0, maxBytes: 0 })).segments.every((s) => s.fraction === 0)).toBe(
      true,
    );
  });

  it('gives empty kinds no share and never divides by zero', () => {
    expect(kindSegments({ images: 0, documents: 0, media: 0, other: 0 }).map((s) => s.fraction)).toEqual([0, 0, 0, 0]);
  });
});
