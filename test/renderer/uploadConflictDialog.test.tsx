/** The question of an upload whose names are taken (issue 25; per file, issue 29: test/renderer/saferDefaults.test.tsx). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
// The UI's strings, in English.
import '../../renderer/i18n';
import { UploadConflictDialog } from '../../renderer/components/UploadConflictDialog/UploadConflictDialog';
import type { PlannedFile } from '../../renderer/upload/folderBatch';

afterEach(cleanup);

const taken = (path: string): PlannedFile => {
  const cut = path.lastIndexOf('/');
  const name = path.slice(cut + 1);
  return { folder: cut < 0 ? null : path.slice(0, cut), name, file: new File(['x'], name), existing: name };
};

describe('UploadConflictDialog', () => {
  it('names the taken files in path order, counts the rest, and gives Keep both the focus', async () => {
    const onAnswer = vi.fn();
    const paths = ['trip/z.txt', 'trip/day 1/b.txt', 'a.txt', 'trip/c.txt', 'trip/d.txt', 'trip/e.txt', 'trip/f.txt'];
    render(<UploadConflictDialog conflicts={paths.map(taken)} username="ana" onAnswer={onAnswer} onClose={() => {}} />);
    const dialog = screen.getByRole('dialog', { name: '7 files with these names are already there' });
    const listed = within(within(dialog).getByRole('list', { name: 'Files already there' })).getAllByRole('listitem');
    expect(listed.map((item) => item.textContent)).toEqual(['a.txt', 'trip/c.txt', 'trip/d.txt', 'trip/day 1/b.txt', 'trip/e.txt']);
    within(dialog).getByText('and 2 more');
    expect(within(dialog).getByText(/Keep both uploads the new copy/).textContent).toContain('a\u00a0(2).txt');
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Keep both' }));
    await userEvent.keyboard('{Enter}');
    expect(onAnswer).toHaveBeenCalledWith('keep-both');
  });

  it('answers replace or skip for the batch (apply to all is on at first), and Escape closes without an answer', async () => {
    const onAnswer = vi.fn();
    const onClose = vi.fn();
    render(
      <UploadConflictDialog conflicts={[taken('trip/a.txt'), taken('trip/b.txt')]} username="ana" onAnswer={onAnswer} onClose={onClose} />,
    );
    const dialog = screen.getByRole('dialog', { name: '2 files with these names are already there' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Replace' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Skip' }));
    expect(onAnswer.mock.calls).toEqual([['replace'], ['skip']]);
    await userEvent.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onAnswer).toHaveBeenCalledTimes(2);
  });
});
