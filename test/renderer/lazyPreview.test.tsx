/**
 * The preview viewer is a chunk fetched at the first preview (docs/explorer.md, "How the UI is
 * served"). When that chunk is gone (the daemon was updated under the open page), the page says
 * so and offers a reload instead of going blank, and the preview closes.
 */
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { LazyPreviewViewer } from '../../renderer/components/Preview/LazyPreviewViewer';
import { renderWithSession } from './harness';

vi.mock('../../renderer/components/Preview/PreviewViewer', () => {
  throw new TypeError('Failed to fetch dynamically imported module: /assets/PreviewViewer-old.js');
});

describe('a preview whose chunk is gone', () => {
  it('says the page is out of date, offers a reload and closes', async () => {
    const onClose = vi.fn();
    renderWithSession(<LazyPreviewViewer username="ana" files={[]} index={0} onIndexChange={() => undefined} onClose={onClose} />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Nimbus was updated since this page was opened');
    expect(within(alert).getByRole('button', { name: 'Reload' })).toBeTruthy();
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
