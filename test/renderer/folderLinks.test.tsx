/**
 * A folder's links in the explorer (issue 27): "Share link…" and "Upload link…" on a folder
 * (its menu, and the toolbar with one folder selected) show the folder's link of that kind, made
 * by `folders.share` only when it has none, in the share dialog for that kind; "Stop sharing"
 * there is `folders.noshare`. A folder that has a link shows a tag on its row, as a shared file
 * does (from `shares.list`: a folder's record has no share flag), which opens its link.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FileEntry, Folder, ShareInfo } from '../../shared/types';
import { NimbusClient } from '../../renderer/api/client';
import { FileBrowser } from '../../renderer/components/FileBrowser/FileBrowser';
import { UploadsProvider } from '../../renderer/upload/UploadsProvider';
import { BASE, fakeLayout, json, renderWithSession, shareInfo, stubFetch } from './harness';

const folder = (name: string, path = name): Folder => ({
  name,
  path,
  fileCount: 0,
  folderCount: 0,
  sizeBytes: 0,
  modifiedAt: '2026-01-02T00:00:00Z',
});
const entry = (name: string): FileEntry => ({
  name,
  folder: 'Trips',
  size: 100,
  modifiedAt: '2026-01-02T00:00:00.000Z',
  mimeType: 'text/plain',
  shared: false,
  shareUrl: null,
});
const share = (kind: 'folder' | 'upload', path: string): ShareInfo =>
  shareInfo({ url: `${BASE}/s/${kind}-${path.replace(/\W/g, '-')}-token-0123456789abcdef`, kind, folder: path, file: '' });

const bodyOf = (init: RequestInit) => JSON.parse(String(init.body ?? '{}')) as Record<string, string>;

/** The folder Trips, holding Photos (no link), Inbox (an upload link) and Public (a folder link) and a file. */
function renderTrips(opts: { racing?: boolean } = {}) {
  let shares: ShareInfo[] = [share('upload', 'Trips/Inbox'), share('folder', 'Trips/Public')];
  const posts: { path: string; body: Record<string, string> }[] = [];
  let listed = 0;
  const stub = stubFetch({
    'GET /api/folders': () =>
      json(200, { folders: [folder('Photos', 'Trips/Photos'), folder('Inbox', 'Trips/Inbox'), folder('Public', 'Trips/Public')] }),
    'GET /api/folders/files': () => json(200, { files: [entry('plan.txt')] }),
    'GET /api/events': () => new Response(new ReadableStream(), { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    'GET /api/shares': () => {
      listed += 1;
      // Racing: another window shares Photos between this list and the explorer's folders.share.
      if (opts.racing && listed > 2) return json(200, { shares: [...shares, share('folder', 'Trips/Photos')] });
      return json(200, { shares });
    },
    'POST /api/folders/share': (url, init) => {
      const body = bodyOf(init);
      posts.push({ path: url.pathname, body });
      if (opts.racing) return json(409, { error: 'Folder is already shared', code: 'already_shared' });
      const made = share(body.upload === 'true' ? 'upload' : 'folder', body.folder);
      shares = [made, ...shares];
      return json(201, { msg: 'Folder shared', share: made });
    },
    'POST /api/folders/noshare': (url, init) => {
      const body = bodyOf(init);
      posts.push({ path: url.pathname, body });
      const kind = body.upload === 'true' ? 'upload' : 'folder';
      shares = shares.filter((s) => !(s.kind === kind && s.folder === body.folder));
      return json(201, { msg: 'Folder unshared' });
    },
  });
  renderWithSession(
    <UploadsProvider>
      <FileBrowser username="ana" folder="Trips" live="live" onOpenFolder={() => {}} />
    </UploadsProvider>,
    { client: new NimbusClient({ baseUrl: BASE, apiKey: null }), auth: 'session' },
  );
  return { ...stub, posts };
}

const grid = () => screen.getByRole('grid', { name: /^Files in ana/ });
const rowOf = (name: string) => within(grid()).getByText(name, { exact: true }).closest('[role="row"]') as HTMLElement;
const tagOf = (name: string) => rowOf(name).querySelector<HTMLButtonElement>('.ft__shared');
const iconsOf = (element: Element | null) =>
  [...(element?.querySelectorAll('svg') ?? [])].map((svg) => [...svg.classList].filter((c) => c.startsWith('lucide-')).pop());
async function menuItem(row: string, name: string) {
  await userEvent.pointer({ keys: '[MouseRight]', target: within(grid()).getByText(row, { exact: true }) });
  await userEvent.click(within(screen.getByRole('menu')).getByRole('menuitem', { name }));
}

let restoreLayout: () => void;
beforeAll(() => {
  restoreLayout = fakeLayout(900, 600);
});
afterAll(() => restoreLayout());
beforeEach(() => {
  localStorage.clear();
  vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText: vi.fn(async () => {}) } });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('a folder’s links in the explorer', () => {
  it('tags the folders that have a folder link or an upload link, from shares.list', async () => {
    renderTrips();
    await within(await screen.findByRole('grid', { name: /^Files in ana/ })).findByText('Photos');
    await vi.waitFor(() => expect(tagOf('Public')).not.toBeNull());
    expect(tagOf('Public')!.getAttribute('aria-label')).toBe('Shared: show the link for Public');
    expect(iconsOf(tagOf('Public'))).toEqual(['lucide-link-2']);
    // An upload link has its own icon and words, not the link's.
    expect(tagOf('Inbox')!.getAttribute('aria-label')).toBe('Shared for uploads: show the upload link for Inbox');
    expect(iconsOf(tagOf('Inbox'))).toEqual(['lucide-inbox']);
    expect(tagOf('Photos')).toBeNull();
    expect(tagOf('plan.txt')).toBeNull();
  });

  it('"Share link…" on a folder makes its link once, shows it in the folder’s dialog, and the row shows it', async () => {
    const { posts } = renderTrips();
    await within(await screen.findByRole('grid', { name: /^Files in ana/ })).findByText('Photos');
    await menuItem('Photos', 'Share link…');
    const dialog = await screen.findByRole('dialog', { name: 'Share the folder “Photos”' });
    expect(within(dialog).getByText(/browse and download everything in “Photos”/)).toBeTruthy();
    const url = share('folder', 'Trips/Photos').url;
    expect((within(dialog).getByLabelText('Share link') as HTMLInputElement).value).toBe(url);
    expect(navigator.clipboard.writeText).toHaveBeenCalledWith(url);
    expect(within(dialog).getByText('The link is on the clipboard.')).toBeTruthy();
    await within(within(dialog).getByRole('region', { name: 'Link options' })).findByText('Downloads: 0');
    expect(posts).toEqual([{ path: '/api/folders/share', body: { username: 'ana', folder: 'Trips/Photos' } }]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    await vi.waitFor(() => expect(tagOf('Photos')?.getAttribute('aria-label')).toBe('Shared: show the link for Photos'));
    // Again: the link it has, not a second one; the row's tag opens it too.
    await userEvent.click(tagOf('Photos')!);
    expect(await screen.findByRole('dialog', { name: 'Share the folder “Photos”' })).toBeTruthy();
    expect(posts).toHaveLength(1);
  });

  it('the toolbar’s "Upload link…" shows a folder’s upload link, and "Stop sharing" removes it with folders.noshare', async () => {
    const { posts } = renderTrips();
    const list = await screen.findByRole('grid', { name: /^Files in ana/ });
    await userEvent.click(await within(list).findByText('Inbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Upload link…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Upload link to “Inbox”' });
    expect(within(dialog).getByText(/they cannot see what is in it/)).toBeTruthy();
    expect((within(dialog).getByLabelText('Upload link') as HTMLInputElement).value).toBe(share('upload', 'Trips/Inbox').url);
    expect(await within(dialog).findByLabelText('Upload limit')).toBeTruthy();
    // It had one: nothing made.
    expect(posts).toEqual([]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Stop sharing' }));
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(posts).toEqual([{ path: '/api/folders/noshare', body: { username: 'ana', folder: 'Trips/Inbox', upload: 'true' } }]);
    expect(await screen.findByText('The upload link to “Inbox” is removed')).toBeTruthy();
    await vi.waitFor(() => expect(tagOf('Inbox')).toBeNull());
  });

  it('makes an upload link beside a folder link, and the tag then says both', async () => {
    const { posts } = renderTrips();
    await within(await screen.findByRole('grid', { name: /^Files in ana/ })).findByText('Public');
    await menuItem('Public', 'Upload link…');
    const dialog = await screen.findByRole('dialog', { name: 'Upload link to “Public”' });
    expect(posts).toEqual([{ path: '/api/folders/share', body: { username: 'ana', folder: 'Trips/Public', upload: 'true' } }]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    await vi.waitFor(() => expect(iconsOf(tagOf('Public'))).toEqual(['lucide-link-2', 'lucide-inbox']));
    expect(tagOf('Public')!.getAttribute('aria-label')).toBe('Shared, with an upload link: show the link for Public');
    // The tag of a folder with both opens its folder link.
    await userEvent.click(tagOf('Public')!);
    expect(await screen.findByRole('dialog', { name: 'Share the folder “Public”' })).toBeTruthy();
  });

  it('shows the link another window made meanwhile rather than failing (409 already_shared)', async () => {
    const { posts } = renderTrips({ racing: true });
    await within(await screen.findByRole('grid', { name: /^Files in ana/ })).findByText('Photos');
    await menuItem('Photos', 'Share link…');
    const dialog = await screen.findByRole('dialog', { name: 'Share the folder “Photos”' });
    expect((within(dialog).getByLabelText('Share link') as HTMLInputElement).value).toBe(share('folder', 'Trips/Photos').url);
    expect(posts.map((post) => post.path)).toEqual(['/api/folders/share']);
    expect(screen.queryByText(/Could not share/)).toBeNull();
  });
});
