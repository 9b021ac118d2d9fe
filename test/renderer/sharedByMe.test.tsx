/**
 * "Shared by me" reads the user's links from `shares.list` (issue 27): one call however deep
 * the tree, links of every kind (a file's, a folder's, an upload link: a word and an icon's
 * shape, not a colour alone), each with its folder, downloads ("3 / 10" or "3"; an upload
 * link's uploads), expiry and state (Active, Expired, Used up: a word and an icon); its options
 * open the share dialog's own for its kind, and Stop sharing revokes it in one click, by the
 * endpoint of its kind.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ShareInfo } from '../../shared/types';
import { SharedByMe } from '../../renderer/components/SharedByMe/SharedByMe';
import { formatDate } from '../../renderer/lib/format';
import { BASE, json, renderWithSession, shareInfo, stubFetch } from './harness';

const link = (file: string, folder: string | null, over: Partial<ShareInfo> = {}): ShareInfo =>
  shareInfo({
    url: `${BASE}/s/${file || `${over.kind ?? 'folder'}-${folder}`}-token-0123456789abcdef`.replace(/[^\w:/.-]/g, '_'),
    kind: file ? 'file' : 'folder',
    folder,
    file,
    ...over,
  });

const EXPIRY = '2026-03-01T00:00:00.000Z';
const SHARES = [
  link('plan.txt', 'Docs', { downloads: 3, maxDownloads: 10, hasPassword: true }),
  link('notes.txt', null, { downloads: 5 }),
  link('beach.jpg', 'Photos/2024/June', { expiresAt: EXPIRY, state: 'expired', downloads: 1 }),
  link('flyer.pdf', null, { maxDownloads: 2, downloads: 2, state: 'exhausted' }),
  // A folder's link and an upload link (no file): named by their folder, listed in the folder above it.
  link('', 'Photos/2024', { downloads: 4, hasPassword: true }),
  link('', 'Inbox', { kind: 'upload', downloads: 1, maxDownloads: 5 }),
];

const FILES = ['plan.txt', 'notes.txt', 'beach.jpg', 'flyer.pdf'];

const bodyOf = (init: RequestInit) => JSON.parse(String(init.body)) as Record<string, string>;

function renderPage() {
  let shares = [...SHARES];
  const noshares: { path: string; body: Record<string, string> }[] = [];
  const edits: Record<string, string>[] = [];
  const stub = stubFetch({
    'POST /api/shares/edit': (_url, init) => {
      const body = bodyOf(init);
      edits.push(body);
      const kind = body.file ? 'file' : body.upload === 'true' ? 'upload' : 'folder';
      const at = shares.findIndex((s) => s.kind === kind && s.folder === body.folder && (kind !== 'file' || s.file === body.file));
      shares[at] = { ...shares[at], maxDownloads: Number(body.maxDownloads) || null };
      return json(200, { msg: 'Link changed', share: shares[at] });
    },
    'GET /api/shares': () => json(200, { shares }),
    'POST /api/files/noshare': (url, init) => {
      const body = bodyOf(init);
      noshares.push({ path: url.pathname, body });
      shares = shares.filter((s) => !(s.kind === 'file' && s.file === body.file && (s.folder ?? undefined) === body.folder));
      return json(201, { msg: 'Unshared', file: {} });
    },
    'POST /api/folders/noshare': (url, init) => {
      const body = bodyOf(init);
      noshares.push({ path: url.pathname, body });
      const kind = body.upload === 'true' ? 'upload' : 'folder';
      shares = shares.filter((s) => !(s.kind === kind && s.folder === body.folder));
      return json(201, { msg: 'Folder unshared' });
    },
  });
  const onOpenFolder = vi.fn();
  renderWithSession(<SharedByMe username="ana" live="live" onOpenFolder={onOpenFolder} />);
  return { ...stub, noshares, edits, onOpenFolder };
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
  it('lists links of every kind from shares.list with their kind, folder, downloads, expiry and state, in one call', async () => {
    const { calls, onOpenFolder } = renderPage();
    const table = await screen.findByRole('table', { name: 'Your share links' });
    const rows = within(table).getAllByRole('row').slice(1);
    // A folder's link and an upload link are named by their folder's last name.
    expect(rows.map((row) => within(row).getByRole('rowheader').querySelector('[title]')?.textContent)).toEqual([
      ...FILES,
      '2024',
      'Inbox',
    ]);
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Name', 'Kind', 'Folder', 'Downloads', 'Expires', 'State', 'Actions']);
    // Kind, folder, downloads, expiry, state (then the actions' cell).
    expect(cells(rowOf('plan.txt')).slice(0, 5)).toEqual(['File', 'Docs', '3 / 10', 'Never', 'Active']);
    expect(cells(rowOf('notes.txt')).slice(0, 5)).toEqual(['File', 'Root', '5', 'Never', 'Active']);
    expect(cells(rowOf('beach.jpg')).slice(0, 5)).toEqual(['File', 'Photos/2024/June', '1', formatDate(EXPIRY), 'Expired']);
    expect(cells(rowOf('flyer.pdf')).slice(0, 5)).toEqual(['File', 'Root', '2 / 2', 'Never', 'Used up']);
    // A folder link's folder is the one above the shared folder; an upload link counts uploads.
    expect(cells(rowOf('2024')).slice(0, 5)).toEqual(['Folder', 'Photos', '4', 'Never', 'Active']);
    expect(cells(rowOf('Inbox')).slice(0, 5)).toEqual(['Upload link', 'Root', '1 / 5 uploads', 'Never', 'Active']);
    // Each kind has its own icon's shape beside the name, besides its word; each state its own icon.
    const nameIcon = (name: string) => rowOf(name).querySelector('th svg')?.getAttribute('class') ?? '';
    expect(nameIcon('plan.txt')).toContain('lucide-file');
    expect(nameIcon('2024')).toContain('lucide-folder-open');
    expect(nameIcon('Inbox')).toContain('lucide-inbox');
    const icons = ['plan.txt', 'beach.jpg', 'flyer.pdf'].map((name) =>
      within(rowOf(name))
        .getByText(/Active|Expired|Used up/)
        .querySelector('svg')
        ?.getAttribute('class'),
    );
    expect(new Set(icons).size).toBe(3);
    // The phone's line under the name says the kind in words too.
    expect(rowOf('Inbox').querySelector('.shared__sub')?.textContent).toBe('Upload link · Root · 1 / 5 uploads · Never');
    // A password is said (to a screen reader too), never shown: a folder link's too.
    expect(within(rowOf('plan.txt')).getByText('Asks for a password')).toBeTruthy();
    expect(within(rowOf('2024')).getByText('Asks for a password')).toBeTruthy();
    expect(within(rowOf('notes.txt')).queryByText('Asks for a password')).toBeNull();
    expect(screen.getByText('6 links')).toBeTruthy();
    // No walk of the tree: one list of links (the status bar asks for the daemon's state besides).
    const asked = calls.map((call) => call.url.pathname);
    expect(asked.filter((path) => path === '/api/shares')).toHaveLength(1);
    expect(asked.filter((path) => /^\/api\/(folders|files)/.test(path))).toEqual([]);
    await userEvent.click(within(table).getByRole('button', { name: 'Photos/2024/June' }));
    expect(onOpenFolder).toHaveBeenLastCalledWith('Photos/2024/June');
    await userEvent.click(within(rowOf('2024')).getByRole('button', { name: 'Photos' }));
    expect(onOpenFolder).toHaveBeenLastCalledWith('Photos');
    await userEvent.click(within(rowOf('Inbox')).getByRole('button', { name: 'Root' }));
    expect(onOpenFolder).toHaveBeenLastCalledWith(null);
  });

  it('names each link’s buttons by its kind, and copies each link', async () => {
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    renderPage();
    await screen.findByRole('table', { name: 'Your share links' });
    for (const name of [
      'Copy link to plan.txt',
      'Link options for plan.txt',
      'Stop sharing plan.txt',
      'Copy link to the folder 2024',
      'Link options for the folder 2024',
      'Stop sharing the folder 2024',
      'Copy link to upload into Inbox',
      'Upload link options for Inbox',
      'Stop sharing the upload link to Inbox',
    ])
      expect(screen.getByRole('button', { name }), name).toBeTruthy();
    // Each button's name holds the words it shows (WCAG 2.5.3, "label in name"), for voice control.
    for (const button of within(screen.getByRole('table')).getAllByRole('button')) {
      const shown = button.querySelector('.shared__label')?.textContent;
      if (shown) expect(button.getAttribute('aria-label')?.toLowerCase(), shown).toContain(shown.toLowerCase());
    }
    await userEvent.click(screen.getByRole('button', { name: 'Copy link to upload into Inbox' }));
    expect(writeText).toHaveBeenCalledWith(SHARES[5].url);
    expect(within(rowOf('Inbox')).getByText('Copied')).toBeTruthy();
  });

  it('opens each kind’s options in its own share dialog, and edits a folder’s links by the folder alone', async () => {
    const { edits } = renderPage();
    await screen.findByRole('table', { name: 'Your share links' });
    await userEvent.click(screen.getByRole('button', { name: 'Link options for plan.txt' }));
    let dialog = await screen.findByRole('dialog', { name: 'Share “plan.txt”' });
    let options = within(dialog).getByRole('region', { name: 'Link options' });
    expect(within(options).getByText('Downloads: 3 of 10')).toBeTruthy();
    expect((within(options).getByLabelText('Download limit') as HTMLInputElement).value).toBe('10');
    expect(within(options).getByText('This link asks for a password.')).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Link options for the folder 2024' }));
    dialog = await screen.findByRole('dialog', { name: 'Share the folder “2024”' });
    expect(within(dialog).getByText(/^Anyone with this link can browse and download everything in “2024”/)).toBeTruthy();
    options = within(dialog).getByRole('region', { name: 'Link options' });
    expect(within(options).getByText('Downloads: 4')).toBeTruthy();
    await userEvent.type(within(options).getByLabelText('Download limit'), '9');
    await userEvent.click(within(options).getByRole('button', { name: 'Save options' }));
    await within(options).findByText('Options saved.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));

    await userEvent.click(screen.getByRole('button', { name: 'Upload link options for Inbox' }));
    dialog = await screen.findByRole('dialog', { name: 'Upload link to “Inbox”' });
    expect(within(dialog).getByText(/they cannot see what is in it/)).toBeTruthy();
    expect((within(dialog).getByLabelText('Upload link') as HTMLInputElement).value).toBe(SHARES[5].url);
    options = within(dialog).getByRole('region', { name: 'Link options' });
    expect(within(options).getByText('Uploads: 1 of 5')).toBeTruthy();
    const limit = within(options).getByLabelText('Upload limit');
    expect((limit as HTMLInputElement).value).toBe('5');
    await userEvent.clear(limit);
    await userEvent.type(limit, '8');
    await userEvent.click(within(options).getByRole('button', { name: 'Save options' }));
    await within(options).findByText('Options saved.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    // shares.edit without `file` edits the folder's link; with `upload`, its upload link.
    expect(edits).toEqual([
      { username: 'ana', folder: 'Photos/2024', maxDownloads: '9' },
      { username: 'ana', folder: 'Inbox', upload: 'true', maxDownloads: '8' },
    ]);
    await vi.waitFor(() => expect(cells(rowOf('Inbox'))[2]).toBe('1 / 8 uploads'));
  });

  it('stops sharing each kind in one click, by its own endpoint', async () => {
    const { noshares } = renderPage();
    await screen.findByRole('table', { name: 'Your share links' });
    await userEvent.click(screen.getByRole('button', { name: 'Stop sharing beach.jpg' }));
    await userEvent.click(screen.getByRole('button', { name: 'Stop sharing the folder 2024' }));
    await userEvent.click(screen.getByRole('button', { name: 'Stop sharing the upload link to Inbox' }));
    expect(noshares).toEqual([
      { path: '/api/files/noshare', body: { username: 'ana', folder: 'Photos/2024/June', file: 'beach.jpg' } },
      { path: '/api/folders/noshare', body: { username: 'ana', folder: 'Photos/2024' } },
      { path: '/api/folders/noshare', body: { username: 'ana', folder: 'Inbox', upload: 'true' } },
    ]);
    await vi.waitFor(() => expect(screen.getByText('3 links')).toBeTruthy());
    for (const name of ['beach.jpg', '2024', 'Inbox']) expect(screen.queryByRole('rowheader', { name: new RegExp(`^${name}`) })).toBeNull();
    expect(await screen.findByText('The upload link to “Inbox” is removed')).toBeTruthy();
    expect(screen.getByText('“2024” is no longer shared')).toBeTruthy();
  });

  it('stops sharing a folder from its share dialog too', async () => {
    const { noshares } = renderPage();
    await screen.findByRole('table', { name: 'Your share links' });
    await userEvent.click(screen.getByRole('button', { name: 'Link options for the folder 2024' }));
    const dialog = await screen.findByRole('dialog', { name: 'Share the folder “2024”' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Stop sharing' }));
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(noshares).toEqual([{ path: '/api/folders/noshare', body: { username: 'ana', folder: 'Photos/2024' } }]);
  });

  it('says when nothing is shared', async () => {
    stubFetch({ 'GET /api/shares': () => json(200, { shares: [] }) });
    renderWithSession(<SharedByMe username="ana" live="live" onOpenFolder={() => {}} />);
    expect(await screen.findByText('Nothing shared yet')).toBeTruthy();
  });
});
