/**
 * The move/copy dialog browses the user's tree (issue 25): it opens where the items are,
 * folders open by click or Enter, Backspace and the breadcrumbs go back up, the open folder
 * is the target, and a folder being moved (or the folder they are in) cannot be chosen.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Folder } from '../../shared/types';
import { MoveDialog } from '../../renderer/components/MoveDialog/MoveDialog';
import { json, renderWithSession, stubFetch } from './harness';

const node = (path: string, folderCount = 0): Folder => ({
  name: path.slice(path.lastIndexOf('/') + 1),
  path,
  fileCount: 0,
  folderCount,
  sizeBytes: 0,
  modifiedAt: '2026-01-02T00:00:00Z',
});

/** ana's tree: Docs, Photos › 2024 › June, Photos › Old; folders.list answers each level. */
const TREE: Record<string, Folder[]> = {
  '': [node('Docs'), node('Photos', 2)],
  Photos: [node('Photos/2024', 1), node('Photos/Old')],
  'Photos/2024': [node('Photos/2024/June')],
};

function renderDialog(props: { from: string | null; folders?: string[]; names?: string[] }) {
  const created: string[] = [];
  const stub = stubFetch({
    'GET /api/folders': (url) => json(200, { folders: TREE[url.searchParams.get('folder') ?? ''] ?? [] }),
    'POST /api/folders/create': (_url, init) => {
      const { folder } = JSON.parse(String(init.body)) as { folder: string };
      created.push(folder);
      TREE[folder.slice(0, Math.max(folder.lastIndexOf('/'), 0))]?.push(node(folder));
      return json(201, { msg: 'created', folder: node(folder) });
    },
  });
  const onPick = vi.fn();
  const onClose = vi.fn();
  renderWithSession(
    <MoveDialog
      username="ana"
      mode="move"
      names={props.names ?? ['a.txt']}
      folders={props.folders}
      from={props.from}
      onPick={onPick}
      onClose={onClose}
    />,
  );
  return { onPick, onClose, created, stub };
}

const dialog = () => screen.getByRole('dialog');
const entries = () =>
  within(dialog())
    .queryAllByRole('button')
    .filter((button) => button.hasAttribute('data-entry'));
const entryNames = () => entries().map((button) => button.querySelector('.move-picker__name')?.textContent);
const entry = (name: string) => entries().find((button) => button.querySelector('.move-picker__name')?.textContent === name)!;
const moveHere = () => within(dialog()).getByRole('button', { name: 'Move here' });
const crumbs = () => within(within(dialog()).getByRole('navigation', { name: 'Target folder path' })).getByRole('list');
const listed = (...names: string[]) => waitFor(() => expect(entryNames()).toEqual(names));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('browsing the tree', () => {
  it('opens where the items are, opens folders by click and Enter, goes up by Backspace and the breadcrumbs, and picks the open folder', async () => {
    const { onPick } = renderDialog({ from: null });
    await listed('Docs', 'Photos');
    // They are at the root already: not a target, and it says so.
    expect((moveHere() as HTMLButtonElement).disabled).toBe(true);
    expect(within(dialog()).getByText('Already in ana: open another folder.')).toBeTruthy();
    // The keyboard lands on the first folder; a chevron says Photos holds folders.
    await waitFor(() => expect(document.activeElement).toBe(entry('Docs')));
    expect(entry('Photos').querySelector('.lucide-chevron-right')).not.toBeNull();
    expect(entry('Docs').querySelector('.lucide-chevron-right')).toBeNull();

    await userEvent.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(entry('Photos'));
    await userEvent.keyboard('{Enter}');
    await listed('2024', 'Old');
    await waitFor(() => expect(document.activeElement).toBe(entry('2024')));
    expect(
      within(crumbs())
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['ana', 'Photos']);
    await userEvent.click(entry('2024'));
    await listed('June');
    expect(
      within(crumbs())
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['ana', 'Photos', '2024']);

    await userEvent.keyboard('{Backspace}');
    await listed('2024', 'Old');
    await userEvent.click(within(crumbs()).getByRole('button', { name: 'ana' }));
    await listed('Docs', 'Photos');
    await userEvent.click(entry('Photos'));
    await listed('2024', 'Old');
    await userEvent.keyboard('{End}{Enter}');
    await waitFor(() => expect(within(dialog()).getByText('No folders in here.')).toBeTruthy());
    expect(within(dialog()).getByText('Moves into Photos/Old.')).toBeTruthy();
    await userEvent.click(moveHere());
    expect(onPick).toHaveBeenCalledWith('Photos/Old');
  });

  it('greys the folder being moved with its reason, never opens it, and refuses the folder it is in', async () => {
    const { onPick } = renderDialog({ from: 'Photos', folders: ['Photos/2024'], names: ['2024'] });
    await listed('2024', 'Old');
    const moved = entry('2024');
    expect(moved.getAttribute('aria-disabled')).toBe('true');
    expect(moved.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(moved.getAttribute('aria-describedby')!)?.textContent).toBe('Being moved');
    await userEvent.click(moved);
    await userEvent.keyboard('{Enter}');
    expect(entryNames()).toEqual(['2024', 'Old']);
    expect((moveHere() as HTMLButtonElement).disabled).toBe(true);
    expect(within(dialog()).getByText('Already in Photos: open another folder.')).toBeTruthy();

    // Up to the root, which may take it, then into Docs.
    await userEvent.keyboard('{Alt>}{ArrowUp}{/Alt}');
    await listed('Docs', 'Photos');
    expect((moveHere() as HTMLButtonElement).disabled).toBe(false);
    // Photos holds the folder but is not inside it: it can be opened.
    expect(entry('Photos').getAttribute('aria-disabled')).toBeNull();
    await userEvent.click(entry('Docs'));
    await waitFor(() => expect(within(dialog()).getByText('Moves into Docs.')).toBeTruthy());
    await userEvent.click(moveHere());
    expect(onPick).toHaveBeenCalledWith('Docs');
  });

  it('makes a new folder inside the open one and opens it; Escape leaves the field', async () => {
    const { onPick, onClose, created } = renderDialog({ from: null });
    await listed('Docs', 'Photos');
    await userEvent.click(entry('Docs'));
    await waitFor(() => expect(within(dialog()).getByText('No folders in here.')).toBeTruthy());
    await userEvent.click(within(dialog()).getByRole('button', { name: 'New folder' }));
    const field = within(dialog()).getByRole('textbox', { name: 'New folder name' });
    expect(document.activeElement).toBe(field);
    await userEvent.keyboard('{Escape}');
    expect(onClose).not.toHaveBeenCalled();
    expect(within(dialog()).queryByRole('textbox')).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(within(dialog()).getByRole('button', { name: 'New folder' })));

    await userEvent.keyboard('{Enter}');
    await userEvent.type(within(dialog()).getByRole('textbox', { name: 'New folder name' }), 'a/b{Enter}');
    expect(within(dialog()).getByRole('alert').textContent).toMatch(/name/i);
    expect(created).toEqual([]);
    await userEvent.clear(within(dialog()).getByRole('textbox', { name: 'New folder name' }));
    await userEvent.type(within(dialog()).getByRole('textbox', { name: 'New folder name' }), 'Drafts{Enter}');
    await waitFor(() => expect(created).toEqual(['Docs/Drafts']));
    await waitFor(() => expect(within(dialog()).getByText('Moves into Docs/Drafts.')).toBeTruthy());
    await userEvent.click(moveHere());
    expect(onPick).toHaveBeenCalledWith('Docs/Drafts');
  });

  it('closes on Escape from the list without picking', async () => {
    const { onPick, onClose } = renderDialog({ from: null });
    await listed('Docs', 'Photos');
    await waitFor(() => expect(document.activeElement).toBe(entry('Docs')));
    await userEvent.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalled();
    expect(onPick).not.toHaveBeenCalled();
  });
});
