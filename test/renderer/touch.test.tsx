/**
 * Touch (issue 29, item 1): with Pointer Events of pointerType 'touch', a tap opens a row, a
 * long press selects it and enters selection mode, where taps toggle; a mouse selects on a click
 * and opens on a double-click as before. On a phone the toolbar's tools and the selection bar
 * are labelled tiles whose accessible names are the words shown.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useState, type ReactElement } from 'react';
import type { FileEntry, Folder } from '../../shared/types';
import { FileGrid } from '../../renderer/components/FileGrid/FileGrid';
import { FileTable } from '../../renderer/components/FileTable/FileTable';
import { LONG_PRESS_MS } from '../../renderer/components/FileTable/useTouchGestures';
import type { ActionCommands } from '../../renderer/components/FileBrowser/fileActions';
import { SelectionBar } from '../../renderer/components/Toolbar/SelectionBar';
import { Toolbar } from '../../renderer/components/Toolbar/Toolbar';
import { fileRow, folderRow, type Row } from '../../renderer/lib/rows';
import { EMPTY_SELECTION, type Selection } from '../../renderer/lib/selection';
import { fakeLayout, renderWithSession } from './harness';

const file = (name: string): FileEntry => ({
  name,
  folder: null,
  size: 1,
  modifiedAt: '2025-01-01T00:00:00Z',
  mimeType: name.endsWith('.png') ? 'image/png' : 'text/plain',
  shared: false,
  shareUrl: null,
});
const folder = (name: string): Folder => ({
  name,
  path: name,
  fileCount: 0,
  folderCount: 0,
  sizeBytes: 0,
  modifiedAt: '2025-01-01T00:00:00Z',
});
const ROWS: Row[] = [folderRow(folder('Photos')), fileRow(file('beach.png')), fileRow(file('notes.txt'))];

interface ViewProps {
  grid?: boolean;
  onOpen: (row: Row) => void;
  onMenu?: (row: Row) => void;
  onRowDragStart?: (row: Row) => void;
}

function View({ grid = false, onOpen, onMenu, onRowDragStart }: ViewProps) {
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const props = {
    label: 'Files',
    rows: ROWS,
    selection,
    onSelectionChange: setSelection,
    editingKey: null,
    onOpen,
    onStartRename: () => {},
    onRenameCommit: () => {},
    onRenameCancel: () => {},
    onDelete: () => {},
    onShareClick: () => {},
    onMenu,
    onRowDragStart,
  };
  return grid ? (
    <FileGrid {...props} username="ana" />
  ) : (
    <FileTable {...props} sort={{ key: 'name', direction: 'asc' }} onSort={() => {}} />
  );
}

/** With a signed-in session, so the grid's thumbnails are plain links (nothing fetched). */
const showView = (ui: ReactElement) => renderWithSession(ui, { auth: 'session' });

/** The row (list) or card (grid) that shows `name`. */
const item = (name: string): HTMLElement => screen.getByText(name, { selector: 'span' }).closest('[aria-selected]') as HTMLElement;
const selectedNames = () =>
  Array.from(screen.getByRole('grid', { name: 'Files' }).querySelectorAll('[aria-selected="true"]'), (element) =>
    element.querySelector('[title]')?.getAttribute('title'),
  );

const finger = { pointerType: 'touch', isPrimary: true, pointerId: 7, clientX: 100, clientY: 100 };

/** A finger's tap: down, up, and the click the browser ends it with. */
function tap(element: HTMLElement) {
  fireEvent.pointerDown(element, finger);
  fireEvent.pointerUp(element, finger);
  fireEvent.click(element);
}

/** A finger resting on the row past the long-press time, then lifted (some browsers then send a click too). */
function longPress(element: HTMLElement, { moveBy = 0 } = {}) {
  fireEvent.pointerDown(element, finger);
  if (moveBy) fireEvent.pointerMove(element, { ...finger, clientY: finger.clientY + moveBy });
  act(() => vi.advanceTimersByTime(LONG_PRESS_MS + 10));
  fireEvent.pointerUp(element, finger);
  fireEvent.click(element);
}

function click(element: HTMLElement, init: MouseEventInit = {}) {
  fireEvent.pointerDown(element, { pointerType: 'mouse', isPrimary: true });
  fireEvent.pointerUp(element, { pointerType: 'mouse', isPrimary: true });
  fireEvent.click(element, init);
}

let restoreLayout: () => void;
beforeAll(() => {
  restoreLayout = fakeLayout(900, 600);
});
afterAll(() => restoreLayout());
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe.each([
  ['the list', false],
  ['the grid', true],
])('touch in %s', (_name, grid) => {
  it('opens a folder or previews a file on a tap, and selects nothing', () => {
    const onOpen = vi.fn();
    showView(<View grid={grid} onOpen={onOpen} />);
    tap(item('Photos'));
    tap(item('beach.png'));
    expect(onOpen.mock.calls.map(([row]) => (row as Row).name)).toEqual(['Photos', 'beach.png']);
    expect(selectedNames()).toEqual([]);
  });

  it('selects on a long press without opening; then taps toggle until nothing is selected, and a tap opens again', () => {
    const onOpen = vi.fn();
    showView(<View grid={grid} onOpen={onOpen} />);
    longPress(item('beach.png'));
    expect(selectedNames()).toEqual(['beach.png']);
    tap(item('notes.txt'));
    tap(item('Photos'));
    expect(selectedNames()).toEqual(['Photos', 'beach.png', 'notes.txt']);
    tap(item('beach.png'));
    expect(selectedNames()).toEqual(['Photos', 'notes.txt']);
    tap(item('Photos'));
    tap(item('notes.txt'));
    expect(selectedNames()).toEqual([]);
    expect(onOpen).not.toHaveBeenCalled();
    // Selection mode ended with the last row: a tap opens again.
    tap(item('notes.txt'));
    expect(onOpen).toHaveBeenCalledWith(expect.objectContaining({ name: 'notes.txt' }));
  });

  it('is not a long press when the finger moves (a scroll) or lifts early', () => {
    const onOpen = vi.fn();
    showView(<View grid={grid} onOpen={onOpen} />);
    fireEvent.pointerDown(item('beach.png'), finger);
    fireEvent.pointerMove(item('beach.png'), { ...finger, clientY: finger.clientY + 30 });
    act(() => vi.advanceTimersByTime(LONG_PRESS_MS * 2));
    fireEvent.pointerCancel(item('beach.png'), finger);
    expect(selectedNames()).toEqual([]);
    fireEvent.pointerDown(item('beach.png'), finger);
    act(() => vi.advanceTimersByTime(LONG_PRESS_MS - 100));
    fireEvent.pointerUp(item('beach.png'), finger);
    act(() => vi.advanceTimersByTime(LONG_PRESS_MS));
    expect(selectedNames()).toEqual([]);
    // A few pixels of drift is still a press.
    longPress(item('beach.png'), { moveBy: 4 });
    expect(selectedNames()).toEqual(['beach.png']);
  });

  it('takes the browser’s own long-press context menu as the long press, not as the menu', () => {
    const onMenu = vi.fn();
    showView(<View grid={grid} onOpen={() => {}} onMenu={onMenu} />);
    fireEvent.pointerDown(item('notes.txt'), finger);
    fireEvent.contextMenu(item('notes.txt'));
    act(() => vi.advanceTimersByTime(LONG_PRESS_MS * 2));
    fireEvent.pointerUp(item('notes.txt'), finger);
    expect(onMenu).not.toHaveBeenCalled();
    expect(selectedNames()).toEqual(['notes.txt']);
    // A mouse's right-click is the menu, as before.
    fireEvent.pointerDown(item('beach.png'), { pointerType: 'mouse', isPrimary: true, button: 2 });
    fireEvent.contextMenu(item('beach.png'));
    expect(onMenu).toHaveBeenCalledWith(expect.objectContaining({ name: 'beach.png' }), expect.anything());
  });

  it('leaves the mouse as it was: a click selects, Ctrl toggles, a double-click opens, holding does nothing', () => {
    const onOpen = vi.fn();
    showView(<View grid={grid} onOpen={onOpen} />);
    click(item('beach.png'));
    expect(selectedNames()).toEqual(['beach.png']);
    click(item('notes.txt'), { ctrlKey: true });
    expect(selectedNames()).toEqual(['beach.png', 'notes.txt']);
    click(item('Photos'));
    expect(selectedNames()).toEqual(['Photos']);
    expect(onOpen).not.toHaveBeenCalled();
    fireEvent.doubleClick(item('Photos'));
    expect(onOpen).toHaveBeenCalledTimes(1);
    fireEvent.pointerDown(item('notes.txt'), { pointerType: 'mouse', isPrimary: true });
    act(() => vi.advanceTimersByTime(LONG_PRESS_MS * 2));
    expect(selectedNames()).toEqual(['Photos']);
  });

  it('never drags rows (a move) from a finger’s press; a mouse still does', () => {
    const onRowDragStart = vi.fn();
    showView(<View grid={grid} onOpen={() => {}} onRowDragStart={onRowDragStart} />);
    fireEvent.pointerDown(item('notes.txt'), finger);
    expect(fireEvent.dragStart(item('notes.txt'))).toBe(false); // cancelled
    fireEvent.pointerCancel(item('notes.txt'), finger);
    expect(onRowDragStart).not.toHaveBeenCalled();
    fireEvent.pointerDown(item('notes.txt'), { pointerType: 'mouse', isPrimary: true });
    fireEvent.dragStart(item('notes.txt'));
    expect(onRowDragStart).toHaveBeenCalledOnce();
  });

  it('opens once on a double tap (the second tap’s dblclick is not a second open)', () => {
    const onOpen = vi.fn();
    showView(<View grid={grid} onOpen={onOpen} />);
    tap(item('notes.txt'));
    fireEvent.doubleClick(item('notes.txt'));
    expect(onOpen).toHaveBeenCalledTimes(1);
  });
});

/** matchMedia answering `matches` for every query, as a phone's browser would for useCompact's. */
function stubScreen(matches: boolean) {
  vi.stubGlobal(
    'matchMedia',
    (query: string) => ({ matches, media: query, addEventListener: () => {}, removeEventListener: () => {} }) as unknown as MediaQueryList,
  );
}

const commands = (): ActionCommands => ({
  open: vi.fn(),
  download: vi.fn(),
  downloadLink: () => null,
  rename: vi.fn(),
  edit: vi.fn(),
  move: vi.fn(),
  copy: vi.fn(),
  share: vi.fn(),
  uploadLink: vi.fn(),
  versions: vi.fn(),
  reveal: vi.fn(),
  openFolder: vi.fn(),
  remove: vi.fn(),
});

/** Every button's accessible name (aria-label, else its text) and the words it shows. */
const buttonsOf = (container: HTMLElement) =>
  within(container)
    .getAllByRole('button')
    .map((button) => ({ name: button.getAttribute('aria-label') ?? button.textContent ?? '', shown: button.textContent ?? '' }));

describe('the phone’s toolbar and selection bar', () => {
  it('shows a label under every tool, and each accessible name holds the words shown', () => {
    stubScreen(true);
    const { container } = render(
      <Toolbar
        breadcrumb={null}
        search=""
        onSearchChange={() => {}}
        view="list"
        onViewChange={() => {}}
        onUpload={() => {}}
        onUploadFolder={() => {}}
        onNewFolder={() => {}}
        target={{ rows: [], everything: false, inShell: false }}
        commands={commands()}
      />,
    );
    const buttons = buttonsOf(container);
    expect(buttons.map((button) => button.shown)).toEqual(['List', 'Grid', 'New folder', 'Upload folder', 'Upload']);
    for (const button of buttons) expect(button.name.toLowerCase()).toContain(button.shown.toLowerCase());
    expect(screen.getByRole('button', { name: 'List view' }).getAttribute('aria-pressed')).toBe('true');
    // The file actions are in the selection bar on a phone, not greyed icons in the toolbar.
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('keeps the desktop toolbar (icons with tooltips) on a wide screen with a mouse', () => {
    stubScreen(false);
    render(
      <Toolbar
        breadcrumb={null}
        search=""
        onSearchChange={() => {}}
        view="grid"
        onViewChange={() => {}}
        onUpload={() => {}}
        target={{ rows: [], everything: false, inShell: false }}
        commands={commands()}
      />,
    );
    const remove = screen.getByRole('button', { name: 'Delete' });
    expect(remove.getAttribute('title')).toBe('Delete (Del)');
    expect(remove.textContent).toBe('');
  });

  it('says how many are selected, runs the actions on them, offers the rest under More, and clears', () => {
    stubScreen(true);
    const run = commands();
    const onClear = vi.fn();
    const onMore = vi.fn();
    const rows = [ROWS[1], ROWS[2]];
    const { container } = render(
      <SelectionBar target={{ rows, everything: false, inShell: false }} commands={run} onClear={onClear} onMore={onMore} />,
    );
    const bar = screen.getByRole('group', { name: 'Selection' });
    expect(within(bar).getByRole('status').textContent).toBe('2 selected');
    const buttons = buttonsOf(container);
    expect(buttons.map((button) => button.shown)).toEqual(['', 'Download', 'Move', 'Delete', 'More']);
    for (const button of buttons) expect(button.name).not.toBe('');
    fireEvent.click(within(bar).getByRole('button', { name: 'Delete' }));
    expect(run.remove).toHaveBeenCalledWith(rows);
    fireEvent.click(within(bar).getByRole('button', { name: 'Move' }));
    expect(run.move).toHaveBeenCalledWith(rows);
    const more = within(bar).getByRole('button', { name: 'More' });
    expect(more.getAttribute('aria-haspopup')).toBe('menu');
    fireEvent.click(more);
    expect(onMore).toHaveBeenCalledOnce();
    fireEvent.click(within(bar).getByRole('button', { name: 'Clear selection' }));
    expect(onClear).toHaveBeenCalledOnce();
  });

  it('offers Share for one row, and is not there with nothing selected or on a desktop', () => {
    stubScreen(true);
    const { rerender } = render(
      <SelectionBar
        target={{ rows: [ROWS[1]], everything: false, inShell: false }}
        commands={commands()}
        onClear={() => {}}
        onMore={() => {}}
      />,
    );
    expect(screen.getByRole('button', { name: 'Share' }).getAttribute('title')).toBe('Share link');
    expect(screen.getByRole('status').textContent).toBe('1 selected');
    rerender(
      <SelectionBar target={{ rows: [], everything: false, inShell: false }} commands={commands()} onClear={() => {}} onMore={() => {}} />,
    );
    expect(screen.queryByRole('group', { name: 'Selection' })).toBeNull();
    cleanup();
    stubScreen(false);
    render(
      <SelectionBar
        target={{ rows: [ROWS[1]], everything: false, inShell: false }}
        commands={commands()}
        onClear={() => {}}
        onMore={() => {}}
      />,
    );
    expect(screen.queryByRole('group', { name: 'Selection' })).toBeNull();
  });
});
