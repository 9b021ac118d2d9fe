/**
 * Safer defaults (issue 29, item 8), in jsdom against a scripted daemon: promoting a user to
 * admin asks first (naming them and what an admin can do; Cancel sends nothing); an upload onto
 * a taken name asks keep both, replace or skip (each file in turn, or all at once), plain files
 * too; a kept copy whose free name was taken meanwhile (409) takes the next one; "Forgot
 * password?" says the link went to the outbox when Nimbus has no SMTP.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Role, User } from '../../shared/types';
import { ApiError, NimbusClient } from '../../renderer/api/client';
import { SignIn } from '../../renderer/components/SignIn/SignIn';
import { UploadConflictDialog } from '../../renderer/components/UploadConflictDialog/UploadConflictDialog';
import { UserSection } from '../../renderer/components/UserSection/UserSection';
import type { ConflictAnswers, PlannedFile } from '../../renderer/upload/folderBatch';
import { UploadQueue, type Uploader, type UploadTarget } from '../../renderer/upload/UploadQueue';
import { UploadsContext } from '../../renderer/upload/uploadsContext';
import { useExplorerUploads } from '../../renderer/upload/useExplorerUploads';
import { BASE, json, renderWithSession, stubFetch } from './harness';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const userNamed = (username: string, role = 'user'): User => ({
  username,
  email: `${username}@example.com`,
  role,
  emailVerified: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  usage: { usedBytes: 0, maxBytes: -1, overQuota: false },
});
const bodyOf = (init: RequestInit) => JSON.parse(String(init.body)) as Record<string, string>;

describe('promoting a user to admin', () => {
  const ROLES: Role[] = [
    { name: 'user', maxStorage: 128, badge: '', builtIn: true },
    { name: 'admin', maxStorage: 256, badge: '', builtIn: true },
    { name: 'family', maxStorage: 512, badge: '', builtIn: false },
  ];

  function renderSection(user: User) {
    const roleCalls: Record<string, string>[] = [];
    stubFetch({
      'POST /api/user/role': (_url, init) => {
        roleCalls.push(bodyOf(init));
        return json(201, { msg: 'Role changed' });
      },
    });
    renderWithSession(<UserSection user={user} roles={ROLES} folderCount={0} onRenamed={() => {}} onDeleted={() => {}} />, {
      client: new NimbusClient({ baseUrl: BASE, apiKey: null }),
      auth: 'session',
      me: { user: userNamed('ada', 'admin'), admin: true, canWrite: true },
    });
    return roleCalls;
  }
  const roleList = () => screen.getByRole('combobox', { name: 'Role' }) as HTMLSelectElement;

  it('asks first, naming the user and what an admin can do; Cancel changes nothing, and Cancel has the focus', async () => {
    const roleCalls = renderSection(userNamed('bob'));
    await userEvent.selectOptions(roleList(), 'admin');
    const ask = await screen.findByRole('dialog', { name: 'Make bob an administrator?' });
    expect(within(ask).getByText('bob', { selector: 'strong' })).toBeTruthy();
    const powers = within(ask)
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(powers).toHaveLength(3);
    expect(powers.join(' ')).toMatch(/every user’s files/);
    expect(powers.join(' ')).toMatch(/passwords/);
    // An arrow key on the list already picked the role: the Enter after it must not confirm.
    expect(document.activeElement).toBe(within(ask).getByRole('button', { name: 'Cancel' }));
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(roleCalls).toEqual([]);
    expect(roleList().value).toBe('user');
  });

  it('gives the role once confirmed; other roles change at once, as before', async () => {
    const roleCalls = renderSection(userNamed('bob'));
    await userEvent.selectOptions(roleList(), 'admin');
    const ask = await screen.findByRole('dialog', { name: 'Make bob an administrator?' });
    await userEvent.click(within(ask).getByRole('button', { name: 'Make administrator' }));
    await waitFor(() => expect(roleCalls).toEqual([{ username: 'bob', name: 'admin' }]));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await userEvent.selectOptions(roleList(), 'family');
    await waitFor(() =>
      expect(roleCalls).toEqual([
        { username: 'bob', name: 'admin' },
        { username: 'bob', name: 'family' },
      ]),
    );
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('does not ask when an admin is already an admin (taking the role away is not asked either)', async () => {
    const roleCalls = renderSection(userNamed('cy', 'admin'));
    await userEvent.selectOptions(roleList(), 'user');
    await waitFor(() => expect(roleCalls).toEqual([{ username: 'cy', name: 'user' }]));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('the upload-conflict question', () => {
  const taken = (path: string): PlannedFile => {
    const cut = path.lastIndexOf('/');
    const name = path.slice(cut + 1);
    return { folder: cut < 0 ? null : path.slice(0, cut), name, file: new File(['x'], name), existing: name };
  };
  const answerOf = (answers: ConflictAnswers, file: PlannedFile) => (typeof answers === 'function' ? answers(file) : answers);

  it('names the one taken file, where it is, and what each answer does', async () => {
    const onAnswer = vi.fn();
    const file = taken('notes.txt');
    render(
      <UploadConflictDialog conflicts={[file]} username="ana" keptAs={() => 'notes (3).txt'} onAnswer={onAnswer} onClose={() => {}} />,
    );
    const dialog = screen.getByRole('dialog', { name: '“notes.txt” is already in ana' });
    expect(dialog.textContent).toContain('Keep both: the new one is uploaded as “notes\u00a0(3).txt”.');
    expect(dialog.textContent).toContain('the current content is kept as a version');
    expect(within(dialog).queryByRole('checkbox')).toBeNull();
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Keep both' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Replace' }));
    expect(onAnswer).toHaveBeenCalledWith('replace');
  });

  it('asks about each file in turn once "apply to all" is off, and answers each its own', async () => {
    const onAnswer = vi.fn();
    const files = ['trip/c.txt', 'a.txt', 'trip/b.txt'].map(taken);
    render(<UploadConflictDialog conflicts={files} username="ana" onAnswer={onAnswer} onClose={() => {}} />);
    // At first one answer for all three (a folder's batch is one question).
    screen.getByRole('dialog', { name: '3 files with these names are already there' });
    const all = screen.getByRole('checkbox', { name: 'Apply to all 3 files' }) as HTMLInputElement;
    expect(all.checked).toBe(true);
    await userEvent.click(all);

    screen.getByRole('dialog', { name: '“a.txt” is already in ana' });
    screen.getByText('Taken name 1 of 3');
    await userEvent.click(screen.getByRole('button', { name: 'Keep both' }));
    screen.getByRole('dialog', { name: '“b.txt” is already in trip' });
    screen.getByText('Taken name 2 of 3');
    // The next question starts on Keep both again, with "apply to all" for the two left still off.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Keep both' })));
    expect((screen.getByRole('checkbox', { name: 'Apply to all 2 files' }) as HTMLInputElement).checked).toBe(false);
    await userEvent.click(screen.getByRole('button', { name: 'Replace' }));
    screen.getByRole('dialog', { name: '“c.txt” is already in trip' });
    expect(screen.queryByRole('checkbox')).toBeNull();
    expect(onAnswer).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Skip' }));

    expect(onAnswer).toHaveBeenCalledTimes(1);
    const answers = onAnswer.mock.calls[0][0] as ConflictAnswers;
    expect(files.map((file) => answerOf(answers, file))).toEqual(['skip', 'keep-both', 'replace']);
  });

  it('answers the rest at once when "apply to all" is ticked again part-way', async () => {
    const onAnswer = vi.fn();
    const files = ['a.txt', 'b.txt', 'c.txt'].map(taken);
    render(<UploadConflictDialog conflicts={files} username="ana" onAnswer={onAnswer} onClose={() => {}} />);
    await userEvent.click(screen.getByRole('checkbox', { name: 'Apply to all 3 files' }));
    await userEvent.click(screen.getByRole('button', { name: 'Skip' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Apply to all 2 files' }));
    screen.getByRole('dialog', { name: '2 files with these names are already there' });
    await userEvent.click(screen.getByRole('button', { name: 'Keep both' }));
    const answers = onAnswer.mock.calls[0][0] as ConflictAnswers;
    expect(files.map((file) => answerOf(answers, file))).toEqual(['skip', 'keep-both', 'keep-both']);
  });
});

describe('plain files onto taken names', () => {
  function Harness({ files }: { files: File[] }) {
    const uploads = useExplorerUploads('ana', 'Docs');
    return (
      <>
        <button type="button" onClick={() => uploads.onFiles(files)}>
          Drop
        </button>
        {uploads.pickers}
      </>
    );
  }

  function setUp(listing: Response | (() => Response)) {
    const sent: UploadTarget[] = [];
    const uploader: Uploader = (target) => {
      sent.push(target);
      return Promise.resolve();
    };
    const queue = new UploadQueue(uploader);
    const stub = stubFetch({ 'GET /api/folders/files': () => (typeof listing === 'function' ? listing() : listing) });
    const drop = (files: File[]) => {
      renderWithSession(
        <UploadsContext.Provider value={queue}>
          <Harness files={files} />
        </UploadsContext.Provider>,
      );
      return userEvent.click(screen.getByRole('button', { name: 'Drop' }));
    };
    return { sent, drop, stub };
  }
  const file = (name: string) => new File([name], name, { type: 'text/plain' });
  const listed = (...names: string[]) => json(200, { files: names.map((name) => ({ name, folder: 'Docs' })) });

  it('asks before sending, and keep both sends the new copy under the first free name', async () => {
    const { sent, drop } = setUp(listed('report.pdf', 'report (2).pdf', 'other.txt'));
    await drop([file('report.pdf'), file('new.txt')]);
    const ask = await screen.findByRole('dialog', { name: '“report.pdf” is already in Docs' });
    expect(ask.textContent).toContain('uploaded as “report\u00a0(3).pdf”');
    expect(sent).toEqual([]);
    await userEvent.click(within(ask).getByRole('button', { name: 'Keep both' }));
    await waitFor(() => expect(sent.map((target) => target.name).sort()).toEqual(['new.txt', 'report (3).pdf']));
    expect(sent.every((target) => target.folder === 'Docs' && !target.overwrite)).toBe(true);
  });

  it('replace overwrites, skip leaves the file out, and a free name is sent without a question', async () => {
    const { sent, drop } = setUp(listed('a.txt', 'b.txt'));
    await drop([file('a.txt'), file('b.txt'), file('c.txt')]);
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Apply to all 2 files' }));
    await userEvent.click(screen.getByRole('button', { name: 'Replace' }));
    await userEvent.click(screen.getByRole('button', { name: 'Skip' }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent.map(({ name, overwrite }) => ({ name, overwrite }))).toEqual([
      { name: 'a.txt', overwrite: true },
      { name: 'c.txt', overwrite: false },
    ]);
  });

  it('sends at once when no name is taken; when the folder cannot be listed, sends as before (the daemon still refuses a taken name)', async () => {
    const free = setUp(listed('other.txt'));
    await free.drop([file('new.txt')]);
    await waitFor(() => expect(free.sent.map((target) => target.name)).toEqual(['new.txt']));
    expect(screen.queryByRole('dialog')).toBeNull();
    cleanup();

    const down = setUp(() => json(503, { error: 'Unavailable', code: 'unavailable' }));
    await down.drop([file('a.txt')]);
    await waitFor(() => expect(down.sent).toEqual([{ username: 'ana', folder: 'Docs', name: 'a.txt', overwrite: false }]));
  });
});

describe('a kept copy whose free name was taken meanwhile', () => {
  const taken409 = () => new ApiError(409, 'file_exists', 'A file with that name already exists');

  it('goes up under the next free name, asked afresh, and never replaces anything', async () => {
    const sent: UploadTarget[] = [];
    const uploader: Uploader = (target) => {
      sent.push(target);
      return target.name === 'a (2).txt' ? Promise.reject(taken409()) : Promise.resolve();
    };
    const freeName = vi.fn(() => Promise.resolve('a (3).txt'));
    const queue = new UploadQueue(uploader, { freeName });
    queue.add([{ name: 'a (2).txt', body: new Blob(['x']), besides: 'a.txt' }], 'ana', null);
    await vi.waitFor(() => expect(queue.getSnapshot()[0]).toMatchObject({ status: 'done', name: 'a (3).txt', overwrite: false }));
    expect(sent.map((target) => target.name)).toEqual(['a (2).txt', 'a (3).txt']);
    expect(freeName).toHaveBeenCalledWith(expect.objectContaining({ name: 'a (2).txt', besides: 'a.txt' }));
  });

  it('fails as any 409 does when it was not a kept copy, or after five tries', async () => {
    const uploader: Uploader = () => Promise.reject(taken409());
    let n = 2;
    const freeName = vi.fn(() => Promise.resolve(`a (${++n}).txt`));
    const queue = new UploadQueue(uploader, { freeName });
    queue.add([{ name: 'a.txt', body: new Blob(['x']) }], 'ana', null);
    await vi.waitFor(() => expect(queue.getSnapshot()[0]).toMatchObject({ status: 'failed', errorStatus: 409 }));
    expect(freeName).not.toHaveBeenCalled();

    queue.add([{ name: 'a (2).txt', body: new Blob(['x']), besides: 'a.txt' }], 'ana', null);
    await vi.waitFor(() => expect(queue.getSnapshot()[1]).toMatchObject({ status: 'failed', errorStatus: 409, name: 'a (7).txt' }));
    expect(freeName).toHaveBeenCalledTimes(5);
  });
});

describe('"Forgot password?" without SMTP', () => {
  function renderSignIn(mailDelivery: 'smtp' | 'outbox') {
    const resets: Record<string, string>[] = [];
    stubFetch({
      'GET /api/auth/options': () => json(200, { registration: 'closed', requireVerified: false, mailDelivery }),
      'POST /api/auth/reset': (_url, init) => {
        resets.push(bodyOf(init));
        return json(200, { msg: 'If that account exists and has an e-mail address, a reset link is on its way' });
      },
    });
    const client = new NimbusClient({ baseUrl: BASE, apiKey: null });
    render(
      <SignIn
        client={client}
        initialForm="password"
        message={null}
        goodNews={null}
        verifyKey={() => Promise.resolve('no')}
        onSignedIn={() => {}}
      />,
    );
    return resets;
  }

  it('says the link was written to the outbox on the server and to ask the administrator, never that a mail is on its way', async () => {
    const resets = renderSignIn('outbox');
    await userEvent.click(screen.getByRole('button', { name: 'Forgot password?' }));
    await screen.findByText(/Nimbus has no mail server configured: the link to choose a new password is written to the outbox/);
    await userEvent.type(screen.getByLabelText('Username or e-mail'), 'ana');
    await userEvent.click(screen.getByRole('button', { name: 'Request the link' }));
    const status = await screen.findByRole('status');
    expect(status.textContent).toContain('Nimbus has no mail server configured');
    expect(status.textContent).toContain('written to the outbox on the server');
    expect(status.textContent).toContain('“outbox” folder in Nimbus’s data directory');
    expect(status.textContent).toContain('ask your administrator');
    expect(status.textContent).not.toMatch(/on its way/);
    expect(resets).toEqual([{ username: 'ana' }]);
  });

  it('with SMTP still says the mail is on its way', async () => {
    renderSignIn('smtp');
    await userEvent.click(screen.getByRole('button', { name: 'Forgot password?' }));
    await userEvent.type(await screen.findByLabelText('Username or e-mail'), 'ana@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send the link' }));
    expect((await screen.findByRole('status')).textContent).toBe(
      'If the account exists, a mail is on its way. Its link works for one hour.',
    );
  });
});
