/**
 * The explorer's Versions panel (issue 27, docs/versions.md): the current content first, then each
 * version by when an upload replaced it (the whole date on hover) with its size, a plain
 * Download link and a Restore that asks first; an empty list says what is kept and for how long;
 * a restore calls files.versions.restore, says so, and asks for the list and the folder again;
 * its failures are said in the person's words (507 in the UI's units, 423 a WebDAV lock, a
 * version no longer kept). Opened from a file's row menu.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FileEntry, FileVersion, UsageDetail } from '../../shared/types';
import { NimbusClient } from '../../renderer/api/client';
import { FileBrowser } from '../../renderer/components/FileBrowser/FileBrowser';
import { VersionsDialog } from '../../renderer/components/VersionsDialog/VersionsDialog';
import { formatDateTime, formatFullDate, formatModified } from '../../renderer/lib/format';
import { UploadsProvider } from '../../renderer/upload/UploadsProvider';
import { BASE, KEY, fakeLayout, json, renderWithSession, stubFetch, type Route } from './harness';

const HOUR = 60 * 60 * 1000;
const KiB = 1024;
const MiB = 1024 * KiB;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

const report = (over: Partial<FileEntry> = {}): FileEntry => ({
  name: 'report.txt',
  folder: 'Work',
  size: 3 * KiB,
  modifiedAt: ago(HOUR),
  mimeType: 'text/plain',
  shared: false,
  shareUrl: null,
  ...over,
});
const version = (id: string, keptAgo: number, size: number): FileVersion => ({
  id: id.repeat(32),
  size,
  modifiedAt: ago(keptAgo + HOUR),
  keptAt: ago(keptAgo),
});
const usage = (over: Partial<UsageDetail> = {}): UsageDetail => ({
  usedBytes: 10 * MiB - 100 * KiB,
  maxBytes: 10 * MiB,
  overQuota: false,
  fileBytes: 8 * MiB,
  trashBytes: 0,
  versionBytes: 0,
  byKind: { images: 0, documents: 0, media: 0, other: 0 },
  fileCount: 4,
  ...over,
});

const bodyOf = (init: RequestInit) => JSON.parse(String(init.body)) as Record<string, string>;

/**
 * A daemon holding report.txt in Work with `versions`: a restore makes the version the content
 * and keeps the current one as a newer version, as the daemon does; `restoreAnswer` answers
 * instead (a failure).
 */
function renderPanel(
  start: FileVersion[],
  options: { restoreAnswer?: () => Response; extra?: Record<string, Route>; keyInPage?: boolean } = {},
) {
  let file = report();
  let versions = [...start];
  const restores: Record<string, string>[] = [];
  const stub = stubFetch({
    'GET /api/folders/files': () => json(200, { files: [file] }),
    'GET /api/files/versions': () => json(200, { versions }),
    'POST /api/files/versions/restore': (_url, init) => {
      restores.push(bodyOf(init));
      if (options.restoreAnswer) return options.restoreAnswer();
      const { id } = bodyOf(init);
      const chosen = versions.find((v) => v.id === id)!;
      versions = [{ id: 'c'.repeat(32), size: file.size, modifiedAt: file.modifiedAt, keptAt: new Date().toISOString() }, ...versions];
      file = { ...file, size: chosen.size, modifiedAt: new Date().toISOString() };
      return json(201, { msg: 'Version restored', file });
    },
    ...options.extra,
  });
  const onClose = vi.fn();
  // Signed in (the cookie goes with a plain link), or a key held in the page (the default session of the harness).
  const session = options.keyInPage ? {} : { client: new NimbusClient({ baseUrl: BASE, apiKey: null }), auth: 'session' as const };
  renderWithSession(<VersionsDialog username="ana" folder="Work" file={report()} onClose={onClose} />, session);
  const calls = (method: string, path: string) => stub.calls.filter((c) => c.method === method && c.url.pathname === path);
  return { ...stub, onClose, calls, restores };
}

/** The question before a restore: the version's date kept on one line (no-break spaces). */
const asked = (v: FileVersion) => `Restore the version from ${formatDateTime(v.keptAt).replaceAll(' ', '\u00a0')}?`;
const dialog = () => screen.getByRole('dialog', { name: 'Versions of “report.txt”' });
const list = () => within(dialog()).getByRole('list', { name: 'Versions of report.txt' });
const items = () => within(list()).getAllByRole('listitem');

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the Versions panel', () => {
  it('lists the current content, then each version by when it was replaced, with its size, Download and Restore', async () => {
    const yesterday = version('a', 26 * HOUR, 2 * KiB);
    const older = version('b', 5 * 24 * HOUR, 1536);
    const { calls } = renderPanel([yesterday, older]);
    await within(dialog()).findByText(formatModified(yesterday.keptAt));
    const [current, first, second] = items();
    expect(within(current).getByText('Current')).toBeTruthy();
    expect(within(current).getByText(`3 KiB · modified ${formatDateTime(report().modifiedAt)}`)).toBeTruthy();
    // Relative, with the whole date on hover; the size in the UI's units.
    const when = within(first).getByText(formatModified(yesterday.keptAt));
    expect(when.getAttribute('title')).toBe(formatFullDate(yesterday.keptAt));
    expect(within(first).getByText('2 KiB')).toBeTruthy();
    expect(within(second).getByText(formatModified(older.keptAt))).toBeTruthy();
    expect(within(second).getByText('1.5 KiB')).toBeTruthy();
    // The current content has no buttons; a version's download is a plain link the browser streams, under the file's name.
    expect(within(current).queryByRole('button')).toBeNull();
    const download = within(first).getByRole('link', { name: `Download the version from ${formatDateTime(yesterday.keptAt)}` });
    const href = new URL(download.getAttribute('href')!);
    expect(href.pathname).toBe('/api/files/versions/download');
    expect(Object.fromEntries(href.searchParams)).toEqual({ username: 'ana', folder: 'Work', file: 'report.txt', id: yesterday.id });
    expect(download.getAttribute('download')).toBe('report.txt');
    expect(within(first).getByRole('button', { name: `Restore the version from ${formatDateTime(yesterday.keptAt)}` }).textContent).toBe(
      'Restore',
    );
    expect(calls('GET', '/api/files/versions').map((c) => Object.fromEntries(c.url.searchParams))).toEqual([
      { username: 'ana', folder: 'Work', file: 'report.txt' },
    ]);
    expect(screen.getByText(/newest first/)).toBeTruthy();
  });

  it('with no versions, says when they are kept and for how long', async () => {
    renderPanel([]);
    expect(await within(dialog()).findByText('No earlier versions yet')).toBeTruthy();
    expect(
      within(dialog()).getByText(
        'When an upload replaces this file, what it replaced is kept here as a version: by default the 10 newest, each for 30 days.',
      ),
    ).toBeTruthy();
    expect(items()).toHaveLength(1);
    expect(within(items()[0]).getByText('Current')).toBeTruthy();
  });

  it('asks before a restore, then restores, says so, and shows the list and the file as they now are', async () => {
    const chosen = version('a', 26 * HOUR, 2 * KiB);
    const { calls, restores } = renderPanel([chosen]);
    const restore = await within(dialog()).findByRole('button', { name: `Restore the version from ${formatDateTime(chosen.keptAt)}` });
    // Cancel restores nothing.
    await userEvent.click(restore);
    let ask = screen.getByRole('dialog', { name: asked(chosen) });
    expect(within(ask).getByText('“report.txt” gets that content back. The current content is kept as a version.')).toBeTruthy();
    await userEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog', { name: /\?$/ })).toBeNull();
    expect(restores).toHaveLength(0);

    await userEvent.click(restore);
    ask = screen.getByRole('dialog', { name: asked(chosen) });
    // The confirming button has the focus (Enter restores), and is not red: nothing is lost.
    expect(document.activeElement?.textContent).toBe('Restore');
    expect(document.activeElement?.className).toContain('button--primary');
    await userEvent.click(within(ask).getByRole('button', { name: 'Restore' }));
    const status = await screen.findByText(`“report.txt” is back to the version from ${formatDateTime(chosen.keptAt)}`);
    expect(status.closest('[role="status"]')?.textContent).toContain('The content it replaced is kept as a version.');
    expect(restores).toEqual([{ username: 'ana', folder: 'Work', file: 'report.txt', id: chosen.id }]);
    // The list is asked for again: the replaced content is the newest version; the current content is the version's.
    await waitFor(() => expect(items()).toHaveLength(3));
    expect(within(items()[0]).getByText(/^2 KiB · modified /)).toBeTruthy();
    expect(within(items()[1]).getByText('3 KiB')).toBeTruthy();
    expect(calls('GET', '/api/files/versions').length).toBeGreaterThanOrEqual(2);
    expect(calls('GET', '/api/folders/files').length).toBeGreaterThanOrEqual(2);
    expect(screen.queryByRole('dialog', { name: /\?$/ })).toBeNull();
  });

  it('says a refused restore for want of space in the UI’s units, with what the trash would free', async () => {
    const chosen = version('a', 26 * HOUR, 2 * MiB);
    renderPanel([chosen], {
      restoreAnswer: () => json(507, { error: 'Storage quota exceeded: 9.9 MB of 10.0 MB used', code: 'quota_exceeded' }),
      extra: { 'GET /api/usage': () => json(200, { usage: usage({ trashBytes: 1536 * KiB }) }) },
    });
    await userEvent.click(await within(dialog()).findByRole('button', { name: /^Restore the version from/ }));
    await userEvent.click(within(screen.getByRole('dialog', { name: /\?$/ })).getByRole('button', { name: 'Restore' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not restore the version of “report.txt”');
    expect(alert.textContent).toContain(
      'Not enough storage space to restore it: the version takes 2 MiB, and 9.9 MiB of 10 MiB are in use. Emptying the trash would free 1.5 MiB.',
    );
    expect(alert.textContent).not.toContain('MB');
  });

  it('says a file locked by a WebDAV client, and a version no longer kept, and then shows the list as it is', async () => {
    const chosen = version('a', 26 * HOUR, 2 * KiB);
    let answer = () => json(423, { error: "'Work/report.txt' is locked by a WebDAV client", code: 'locked' });
    const { calls } = renderPanel([chosen], { restoreAnswer: () => answer() });
    await userEvent.click(await within(dialog()).findByRole('button', { name: /^Restore the version from/ }));
    await userEvent.click(within(screen.getByRole('dialog', { name: /\?$/ })).getByRole('button', { name: 'Restore' }));
    expect((await screen.findByRole('alert')).textContent).toContain(
      'This item is locked by a WebDAV client. Try again once it is unlocked.',
    );

    answer = () => json(404, { error: 'This file has no version with that id', code: 'version_not_found' });
    await userEvent.click(within(dialog()).getByRole('button', { name: /^Restore the version from/ }));
    await userEvent.click(within(screen.getByRole('dialog', { name: /\?$/ })).getByRole('button', { name: 'Restore' }));
    await screen.findByText('That version is no longer kept: it expired, or was dropped to make room.');
    expect(calls('GET', '/api/files/versions').length).toBeGreaterThanOrEqual(3);
  });

  it('with a key held in the page, downloads a version with the key, under the file’s name', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:version-1');
    URL.revokeObjectURL = vi.fn();
    const saved: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(`${this.href} ${this.download}`);
    });
    const chosen = version('a', HOUR, 5);
    const { calls } = renderPanel([chosen], {
      keyInPage: true,
      extra: { 'GET /api/files/versions/download': () => new Response('first', { status: 200 }) },
    });
    await userEvent.click(
      await within(dialog()).findByRole('button', { name: `Download the version from ${formatDateTime(chosen.keptAt)}` }),
    );
    await waitFor(() => expect(saved).toEqual(['blob:version-1 report.txt']));
    const [request] = calls('GET', '/api/files/versions/download');
    expect(request.headers.get('API-Key')).toBe(KEY);
    expect(request.url.searchParams.get('id')).toBe(chosen.id);
    click.mockRestore();
  });

  it('says why the list could not load, and tries again', async () => {
    let fail = true;
    renderPanel([], {
      extra: {
        'GET /api/files/versions': () =>
          fail ? json(404, { error: 'File not found', code: 'file_not_found' }) : json(200, { versions: [version('a', HOUR, 10)] }),
      },
    });
    const failed = await within(dialog()).findByText(/Could not load the versions\. File not found/);
    fail = false;
    await userEvent.click(within(failed.closest('[role="alert"]') as HTMLElement).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(items()).toHaveLength(2));
  });
});

describe('Versions… in the explorer', () => {
  let restoreLayout: () => void;
  beforeAll(() => {
    restoreLayout = fakeLayout(900, 600);
  });
  afterAll(() => restoreLayout());

  it('opens the panel for a file from its row menu', async () => {
    const file = { ...report(), folder: null };
    stubFetch({
      'GET /api/folders': () => json(200, { folders: [] }),
      'GET /api/files': () => json(200, { files: [file] }),
      'GET /api/files/versions': () => json(200, { versions: [version('a', HOUR, 10)] }),
      'GET /api/events': () => new Response(new ReadableStream(), { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
      'GET /api/shares': () => json(200, { shares: [] }),
    });
    renderWithSession(
      <UploadsProvider>
        <FileBrowser username="ana" folder={null} live="live" onOpenFolder={() => {}} />
      </UploadsProvider>,
      { client: new NimbusClient({ baseUrl: BASE, apiKey: null }), auth: 'session' },
    );
    await userEvent.pointer({ keys: '[MouseRight]', target: await screen.findByText('report.txt') });
    await userEvent.click(screen.getByRole('menuitem', { name: 'Versions…' }));
    await within(dialog()).findByText('10 B');
    await userEvent.click(within(dialog()).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
