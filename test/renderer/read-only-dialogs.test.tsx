/**
 * A `read` key (auth.me's `canWrite` false) in the two dialogs a reader still opens: the share
 * dialog of an already-shared file shows and copies its link but offers neither its options nor
 * Stop sharing, and the Versions panel downloads an earlier version but does not restore it.
 * A writer gets both, as before.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import type { FileVersion } from '../../shared/types';
import { ShareDialog } from '../../renderer/components/ShareDialog/ShareDialog';
import { VersionRow } from '../../renderer/components/VersionsDialog/VersionRow';
import { json, renderWithSession, shareInfo, stubFetch } from './harness';

const link = shareInfo({ url: 'https://files.example.com/s/report-token-0123456789abcdef' });

const version: FileVersion = {
  id: 'a'.repeat(32),
  size: 2048,
  modifiedAt: '2026-01-01T00:00:00.000Z',
  keptAt: '2026-01-02T00:00:00.000Z',
};

const asCaller = (canWrite: boolean) => ({ me: { user: null, admin: false, canWrite } });

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe.each([
  ['a reader', false],
  ['a writer', true],
])('for %s', (_who, canWrite) => {
  it(`the share dialog shows and copies the link${canWrite ? ', with its options and Stop sharing' : ', and nothing that changes it'}`, async () => {
    stubFetch({ 'GET /api/shares': () => json(200, { shares: [link] }) });
    renderWithSession(
      <ShareDialog username="ana" link={link} copied onCopy={async () => true} onUnshare={async () => {}} onClose={() => {}} />,
      asCaller(canWrite),
    );
    expect(screen.getByDisplayValue(link.url)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copied' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Stop sharing' }) !== null).toBe(canWrite);
    expect(screen.queryByRole('region', { name: 'Link options' }) !== null).toBe(canWrite);
  });

  it(`an earlier version downloads${canWrite ? ' and restores' : ', and has no Restore'}`, () => {
    renderWithSession(
      <ul>
        <VersionRow username="ana" folder="Docs" file="report.pdf" version={version} onRestore={() => {}} />
      </ul>,
      asCaller(canWrite),
    );
    // With a key held in the page the download is a button that fetches with it (a link otherwise).
    expect(screen.getByLabelText(/^Download the version from/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Restore the version from/ }) !== null).toBe(canWrite);
  });
});
