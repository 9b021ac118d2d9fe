/**
 * "Shared by me" reads the user's links from `shares.list` (issue 27): one call however deep
 * the tree, each link with its folder, downloads ("3 / 10" or "3"), expiry and state (Active,
 * Expired, Used up: a word and an icon, not a colour alone); its options open the share dialog's
 * own, and Stop sharing revokes it in one click.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ShareInfo } from '../../shared/types';
import { SharedByMe } from '../../renderer/components/SharedByMe/SharedByMe';
import { formatDate } from '../../renderer/lib/format';
import { BASE, json, renderWithSession, stubFetch } from './harness';

const link = (file: string, folder: string | null, over: Partial<ShareInfo> = {}): ShareInfo =>
  ({
    url: `${BASE}/s/${file || 'folder'}-token-0123456789abcdef`,
    kind: file ? 'file' : 'folder',
    username: 'ana',
    folder,
    file,
    createdAt: '2026-01-02T00:00:00.000Z',
    expiresAt: null,
    hasPassword: false,
    maxDownloads: null,
    downloads: 0,
    state: 'active',
    ...over,
  }) as ShareInfo;

const EXPIRY = '2026-03-01T00:00:00.000Z';
const SHARES = [
  link('plan.txt', 'Docs', { downloads: 3, maxDownloads: 10, hasPassword: true }),
  link('notes.txt', null, { downloads: 5 }),
  link('beach.jpg', 'Photos/2024/June', { expiresAt: EXPIRY, state: 'expired', downloads: 1 }),
  link('flyer.pdf', null, { maxDownloads: 2, downloads: 2, state: 'exhausted' }),
  // A folder's link (no file): not this page's.
  link('', 'Photos'),
];

const bodyOf = (init: RequestInit) => JSON.parse(String(init.body)) as Record<string, string>;

function renderPage() {
  let shares = [...SHARES];
  const noshares: Record<string, string>[] = [];
  const stub = stubFetch({
    'GET /api/shares': () => json(200, { shares }),
    'POST /api/files/noshare': (_url, init) => {
      const body = bodyOf(init);
      noshares.push(body);
      shares = shares.filter((s) => !(s.file === body.file && (s.folder ?? undefined) === body.folder));
      return json(201, { msg: 'Unshared', file: {} });
    },
  });
  const onOpenFolder = vi.fn();
  renderWithSession(<SharedByMe username="ana" live="live" onOpenFolder={onOpenFolder} />);
  return { ...stub, noshares, onOpenFolder };
}

const cells = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((cell) => cell.textContent);
const rowOf = (name: string) => screen.getByRole('rowheader', { name: new RegExp(`^${name.replace('.', '\\.')}`) }).closest('tr')!;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('Shared by me', () => {
  it('lists the file links of shares.list with their folder, downloads, expiry and state, in one call', async () => {
    const { calls, onOpenFolder } = renderPage();
    const table = await screen.findByRole('table', { name: 'Files you share by link' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getByRole('rowheader').querySelector('[title]')?.textContent)).toEqual([
      'plan.txt',
      'notes.txt',
      'beach.jpg',
      'flyer.pdf',
    ]);
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Name', 'Folder', 'Downloads', 'Expires', 'State', 'Actions']);
    // Folder, downloads, expiry, state (then the actions' cell).
    expect(cells(rowOf('plan.txt')).slice(0, 4)).toEqual(['Docs', '3 / 10', 'Never', 'Active']);
    expect(cells(rowOf('notes.txt')).slice(0, 4)).toEqual(['Root', '5', 'Never', 'Active']);
    expect(cells(rowOf('beach.jpg')).slice(0, 4)).toEqual(['Photos/2024/June', '1', formatDate(EXPIRY), 'Expired']);
    expect(cells(rowOf('flyer.pdf')).slice(0, 4)).toEqual(['Root', '2 / 2', 'Never', 'Used up']);
    // Each state has its own icon beside its word, not only its colour.
    const icons = ['plan.txt', 'beach.jpg', 'flyer.pdf'].map((name) =>
      within(rowOf(name))
        .getByText(/Active|Expired|Used up/)
        .querySelector('svg')
        ?.getAttribute('class'),
    );
    expect(new Set(icons).size).toBe(3);
    // A password is said (to a screen reader too), never shown.
    expect(within(rowOf('plan.txt')).getByText('Asks for a password')).toBeTruthy();
    expect(within(rowOf('notes.txt')).queryByText('Asks for a password')).toBeNull();
    expect(screen.getByText('4 shared files')).toBeTruthy();
    // No walk of the tree: one list of links (the status bar asks for the daemon's state besides).
    const asked = calls.map((call) => call.url.pathname);
    expect(asked.filter((path) => path === '/api/shares')).toHaveLength(1);
    expect(asked.filter((path) => /^\/api\/(folders|files)/.test(path))).toEqual([]);
    await userEvent.click(within(table).getByRole('button', { name: 'Photos/2024/June' }));
    expect(onOpenFolder).toHaveBeenCalledWith('Photos/2024/June');
  });

  it('opens a link’s options in the share dialog, and stops sharing in one click', async () => {
    const { noshares } = renderPage();
    await screen.findByRole('table', { name: 'Files you share by link' });
    await userEvent.click(screen.getByRole('button', { name: 'Link options for plan.txt' }));
    const dialog = await screen.findByRole('dialog', { name: 'Share “plan.txt”' });
    const options = within(dialog).getByRole('region', { name: 'Link options' });
    expect(within(options).getByText('Downloads: 3 of 10')).toBeTruthy();
    expect((within(options).getByLabelText('Download limit') as HTMLInputElement).value).toBe('10');
    expect(within(options).getByText('This link asks for a password.')).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Stop sharing beach.jpg' }));
    expect(noshares).toEqual([{ username: 'ana', folder: 'Photos/2024/June', file: 'beach.jpg' }]);
    await vi.waitFor(() => expect(screen.queryByRole('rowheader', { name: /^beach\.jpg/ })).toBeNull());
    expect(screen.getByText('3 shared files')).toBeTruthy();
  });

  it('says when nothing is shared', async () => {
    stubFetch({ 'GET /api/shares': () => json(200, { shares: [link('', 'Photos')] }) });
    renderWithSession(<SharedByMe username="ana" live="live" onOpenFolder={() => {}} />);
    expect(await screen.findByText('Nothing shared yet')).toBeTruthy();
  });
});
