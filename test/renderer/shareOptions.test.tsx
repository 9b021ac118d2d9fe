/**
 * The share dialog's "Link options" (issue 27): an expiry, a password and a download limit set
 * and saved through `shares.edit` (the password in the body only), the password removed, the
 * link's downloads and state shown, errors said in the dialog; and the notice for a link whose
 * address is this computer's own. The same dialog for a folder's link and an upload link: its
 * title and lead say what the link does, its options edit the folder's link (no `file`; `upload`
 * for the upload link), and an upload link's limit is its uploads'.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ShareInfo } from '../../shared/types';
import { ShareDialog } from '../../renderer/components/ShareDialog/ShareDialog';
import { dayStart, editOf, isLoopbackUrl } from '../../renderer/lib/shareLinks';
import { json, renderWithSession, shareInfo, stubFetch } from './harness';

const LOCAL_URL = 'http://127.0.0.1:7878/s/report-token-0123456789abcdef';
const PUBLIC_URL = 'https://files.example.com/s/report-token-0123456789abcdef';

const link = (over: Partial<ShareInfo> = {}): ShareInfo => shareInfo({ url: LOCAL_URL, ...over });

const bodyOf = (init: RequestInit) => JSON.parse(String(init.body)) as Record<string, string>;

/** A daemon holding one link: shares.list answers it, shares.edit changes it as the daemon would. */
function renderDialog(start: ShareInfo, editAnswer?: () => Response) {
  let share = start;
  const edits: { query: string; body: Record<string, string> }[] = [];
  const stub = stubFetch({
    'GET /api/shares': () => json(200, { shares: [share] }),
    'POST /api/shares/edit': (url, init) => {
      const body = bodyOf(init);
      edits.push({ query: url.search, body });
      if (editAnswer) return editAnswer();
      share = {
        ...share,
        expiresAt: body.expires === undefined ? share.expiresAt : body.expires === 'never' ? null : body.expires,
        maxDownloads: body.maxDownloads === undefined ? share.maxDownloads : Number(body.maxDownloads) || null,
        hasPassword: body.removePassword === 'true' ? false : body.password !== undefined || share.hasPassword,
      };
      return json(200, { msg: 'Share updated', share });
    },
  });
  const onUnshare = vi.fn(async () => {});
  renderWithSession(<ShareDialog username="ana" link={start} copied onCopy={async () => true} onUnshare={onUnshare} onClose={() => {}} />);
  return { ...stub, edits, onUnshare };
}

const options = () => screen.getByRole('region', { name: 'Link options' });

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the share dialog’s link options', () => {
  it('sets an expiry, a password and a download limit in one edit, the password in the body only', async () => {
    const { edits } = renderDialog(link({ downloads: 2 }));
    expect(await within(options()).findByText('Downloads: 2')).toBeTruthy();
    expect(within(options()).getByText('Active')).toBeTruthy();
    const save = within(options()).getByRole('button', { name: 'Save options' });
    expect((save as HTMLButtonElement).disabled).toBe(true); // nothing changed yet
    fireEvent.change(within(options()).getByLabelText('Expires on'), { target: { value: '2099-06-30' } });
    await userEvent.type(within(options()).getByLabelText('Download limit'), '10');
    await userEvent.type(within(options()).getByLabelText('Set a password'), 'blue harbour');
    await userEvent.click(save);
    expect(await within(options()).findByText('Options saved.')).toBeTruthy();
    expect(edits).toHaveLength(1);
    expect(edits[0].query).toBe('');
    expect(edits[0].body).toEqual({
      username: 'ana',
      folder: 'Docs',
      file: 'report.pdf',
      // The start of the day picked, in this computer's time zone.
      expires: dayStart('2099-06-30')!.toISOString(),
      maxDownloads: '10',
      password: 'blue harbour',
    });
    // The link now shows what the daemon answered; the password field is empty again (never shown back).
    expect(await within(options()).findByText('Downloads: 2 of 10')).toBeTruthy();
    expect(within(options()).getByText('This link asks for a password.')).toBeTruthy();
    expect((within(options()).getByLabelText('Change the password') as HTMLInputElement).value).toBe('');
    expect((within(options()).getByLabelText('Download limit') as HTMLInputElement).value).toBe('10');
  });

  it('sends only what changed: a limit taken away, the expiry and password left as they are', async () => {
    const { edits } = renderDialog(link({ expiresAt: '2099-01-01T18:30:00.000Z', maxDownloads: 5, hasPassword: true }));
    const limit = await within(options()).findByLabelText('Download limit');
    expect((limit as HTMLInputElement).value).toBe('5');
    await userEvent.clear(limit);
    await userEvent.click(within(options()).getByRole('button', { name: 'Save options' }));
    await within(options()).findByText('Options saved.');
    expect(edits[0].body).toEqual({ username: 'ana', folder: 'Docs', file: 'report.pdf', maxDownloads: '0' });
  });

  it('clears an expiry to never', async () => {
    const { edits } = renderDialog(link({ expiresAt: '2099-01-01T00:00:00.000Z' }));
    await userEvent.click(await within(options()).findByRole('button', { name: 'Never expire' }));
    expect((within(options()).getByLabelText('Expires on') as HTMLInputElement).value).toBe('');
    await userEvent.click(within(options()).getByRole('button', { name: 'Save options' }));
    await within(options()).findByText('Options saved.');
    expect(edits[0].body.expires).toBe('never');
  });

  it('removes the password with one click', async () => {
    const { edits } = renderDialog(link({ hasPassword: true }));
    expect(await within(options()).findByText('This link asks for a password.')).toBeTruthy();
    await userEvent.click(within(options()).getByRole('button', { name: 'Remove password' }));
    expect(await within(options()).findByText(/Password removed/)).toBeTruthy();
    expect(edits.map((edit) => edit.body)).toEqual([{ username: 'ana', folder: 'Docs', file: 'report.pdf', removePassword: 'true' }]);
    expect(within(options()).getByText('No password: anyone with the link can open it.')).toBeTruthy();
    expect(within(options()).queryByRole('button', { name: 'Remove password' })).toBeNull();
  });

  it('says what is wrong in the dialog: a limit that is not a number (nothing sent), a day already past', async () => {
    const { edits } = renderDialog(link(), () => json(400, { error: 'The expiry must be in the future', code: 'invalid_parameter' }));
    const limit = await within(options()).findByLabelText('Download limit');
    await userEvent.type(limit, 'ten');
    await userEvent.click(within(options()).getByRole('button', { name: 'Save options' }));
    expect(within(options()).getByText('Type a whole number, or leave it empty for no limit.')).toBeTruthy();
    expect(limit.getAttribute('aria-invalid')).toBe('true');
    expect(edits).toHaveLength(0);
    await userEvent.clear(limit);
    // The day passed while the dialog was open: the daemon's refusal, in the person's words.
    fireEvent.change(within(options()).getByLabelText('Expires on'), { target: { value: '2099-06-30' } });
    await userEvent.click(within(options()).getByRole('button', { name: 'Save options' }));
    expect((await within(options()).findByRole('alert')).textContent).toBe('Pick a day after today.');
    expect(edits).toHaveLength(1);
  });

  it('shows a used-up link’s state and what makes it work again', async () => {
    renderDialog(link({ maxDownloads: 3, downloads: 3, state: 'exhausted' }));
    expect(await within(options()).findByText('Used up')).toBeTruthy();
    expect(within(options()).getByText('Downloads: 3 of 3')).toBeTruthy();
    expect(within(options()).getByText(/Raise the limit/)).toBeTruthy();
  });

  it('says a link on 127.0.0.1 only works on this computer, and how to fix it', async () => {
    renderDialog(link());
    const note = await screen.findByRole('note', { name: 'This link only works on this computer' });
    expect(note.textContent).toContain('127.0.0.1:7878');
    expect(note.textContent).toContain('NIMBUS_PUBLIC_URL');
    expect(note.textContent).toContain('https://files.example.com');
    expect(note.textContent).toContain('restart Nimbus');
  });

  it('says nothing of the kind for a public address', async () => {
    renderDialog(link({ url: PUBLIC_URL }));
    await within(options()).findByText('Active');
    expect(screen.queryByRole('note')).toBeNull();
    expect(screen.queryByText(/only works on this computer/)).toBeNull();
  });
});

describe('the share dialog of a folder link and of an upload link', () => {
  const FOLDER_URL = 'https://files.example.com/s/photos-token-0123456789abcdef';
  const UPLOAD_URL = 'https://files.example.com/s/inbox-token-0123456789abcdef';

  it('says a folder link shares the whole folder, and edits it by the folder alone', async () => {
    const { edits, onUnshare } = renderDialog(link({ kind: 'folder', url: FOLDER_URL, folder: 'Trips/Photos', file: '', downloads: 2 }));
    const dialog = screen.getByRole('dialog', { name: 'Share the folder “Photos”' });
    expect(within(dialog).getByText(/^Anyone with this link can browse and download everything in “Photos”/)).toBeTruthy();
    expect((within(dialog).getByLabelText('Share link') as HTMLInputElement).value).toBe(FOLDER_URL);
    expect(await within(options()).findByText('Downloads: 2')).toBeTruthy();
    await userEvent.type(within(options()).getByLabelText('Download limit'), '20');
    await userEvent.type(within(options()).getByLabelText('Set a password'), 'blue harbour');
    await userEvent.click(within(options()).getByRole('button', { name: 'Save options' }));
    expect(await within(options()).findByText('Options saved.')).toBeTruthy();
    // No `file`: the folder's own link. No `upload`: not its upload link.
    expect(edits.map((edit) => edit.body)).toEqual([
      { username: 'ana', folder: 'Trips/Photos', maxDownloads: '20', password: 'blue harbour' },
    ]);
    expect(await within(options()).findByText('Downloads: 2 of 20')).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Stop sharing' }));
    expect(onUnshare).toHaveBeenCalledOnce();
  });

  it('says an upload link takes files and shows nothing, counts its uploads, and edits it with `upload`', async () => {
    const { edits } = renderDialog(
      link({ kind: 'upload', url: UPLOAD_URL, folder: 'Inbox', file: '', downloads: 3, maxDownloads: 3, state: 'exhausted' }),
    );
    const dialog = screen.getByRole('dialog', { name: 'Upload link to “Inbox”' });
    expect(
      within(dialog).getByText(/^Anyone with this link can upload files into “Inbox” without signing in; they cannot see what is in it/),
    ).toBeTruthy();
    expect((within(dialog).getByLabelText('Upload link') as HTMLInputElement).value).toBe(UPLOAD_URL);
    expect(await within(options()).findByText('Uploads: 3 of 3')).toBeTruthy();
    expect(within(options()).getByText('Used up')).toBeTruthy();
    expect(within(options()).getByText(/^Its uploads are used up/)).toBeTruthy();
    expect(within(options()).queryByLabelText('Download limit')).toBeNull();
    const limit = within(options()).getByLabelText('Upload limit');
    await userEvent.clear(limit);
    await userEvent.type(limit, '10');
    await userEvent.click(within(options()).getByRole('button', { name: 'Save options' }));
    await within(options()).findByText('Options saved.');
    expect(edits.map((edit) => edit.body)).toEqual([{ username: 'ana', folder: 'Inbox', upload: 'true', maxDownloads: '10' }]);
    expect(await within(options()).findByText('Uploads: 3 of 10')).toBeTruthy();
  });

  it('keeps a file’s title and words for a file link', () => {
    renderDialog(link({ url: PUBLIC_URL }));
    const dialog = screen.getByRole('dialog', { name: 'Share “report.pdf”' });
    expect(within(dialog).getByText(/^Anyone with this link can download the file without signing in/)).toBeTruthy();
    expect(within(dialog).getByLabelText('Share link')).toBeTruthy();
  });

  it('says a folder link or an upload link revoked meanwhile is gone, in its own words', async () => {
    for (const [kind, words] of [
      ['folder', 'This folder is no longer shared.'],
      ['upload', 'This folder no longer has an upload link.'],
    ] as const) {
      stubFetch({ 'GET /api/shares': () => json(200, { shares: [] }) });
      renderWithSession(
        <ShareDialog
          username="ana"
          link={{ kind, url: FOLDER_URL, folder: 'Photos', file: '' }}
          copied={false}
          onCopy={async () => true}
          onUnshare={async () => {}}
          onClose={() => {}}
        />,
      );
      expect(await within(options()).findByText(words)).toBeTruthy();
      cleanup();
    }
  });
});

describe('share link helpers', () => {
  it('knows a loopback address in every form', () => {
    for (const url of [
      'http://127.0.0.1:7878/s/x',
      'http://127.1.2.3/s/x',
      'http://localhost:7878/s/x',
      'http://[::1]:7878/s/x',
      'http://LOCALHOST/s/x',
    ])
      expect(isLoopbackUrl(url), url).toBe(true);
    for (const url of [
      'https://files.example.com/s/x',
      'http://192.168.1.20:7878/s/x',
      'http://[2001:db8::1]/s/x',
      'not a url',
      'http://128.0.0.1/',
    ])
      expect(isLoopbackUrl(url), url).toBe(false);
  });

  it('refuses a day that has begun, and an edit of nothing is empty', () => {
    const now = new Date(2030, 4, 10, 15, 0);
    expect(editOf({ expiresAt: null, maxDownloads: null }, { day: '2030-05-10', limit: '', password: '' }, now)).toEqual({
      problem: 'expiryPast',
    });
    expect(editOf({ expiresAt: null, maxDownloads: null }, { day: '2030-05-11', limit: '', password: '' }, now)).toEqual({
      edit: { expires: new Date(2030, 4, 11).toISOString() },
    });
    expect(editOf({ expiresAt: null, maxDownloads: 4 }, { day: '', limit: '4', password: '' }, now)).toEqual({ edit: {} });
  });
});
