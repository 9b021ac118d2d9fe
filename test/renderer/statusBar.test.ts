/** The status bar's words for the daemon (issue 10, item 15c) and for a directory at any depth (issue 25). */
import { describe, expect, it } from 'vitest';
import type { DashInfo, FileEntry, Folder } from '../../shared/types';
// The UI's strings, in English.
import i18next from '../../renderer/i18n';
import { directorySummary } from '../../renderer/components/FileBrowser/directorySummary';
import { fileRow, folderRow } from '../../renderer/lib/rows';
import { daemonState } from '../../renderer/components/StatusBar/StatusBar';

const ready = {
  version: '0.1.0',
  storage: { usedBytes: 0, dir: '/tmp/s', available: true },
  index: { state: 'ready', watcher: 'inotify' },
} as unknown as DashInfo;

describe('daemonState', () => {
  it('says the daemon is unreachable once a status request fails, even after an earlier answer', () => {
    expect(daemonState(ready, true)).toEqual({ text: 'Daemon unreachable', tone: 'bad' });
  });

  it('says it runs while it answers', () => {
    expect(daemonState(ready, false)).toEqual({ text: 'Daemon running', tone: 'ok' });
  });
});

describe('directorySummary', () => {
  const june: Folder = {
    name: 'june',
    path: 'photos/2024/june',
    fileCount: 2,
    folderCount: 1,
    sizeBytes: 40,
    modifiedAt: '2026-01-02T00:00:00Z',
  };
  const year: FileEntry = {
    name: 'year.txt',
    folder: 'photos/2024',
    size: 8,
    modifiedAt: '2026-01-02T00:00:00Z',
    mimeType: 'text/plain',
    shared: false,
    shareUrl: null,
  };

  it('counts the subfolders of a folder at depth, as at the root', () => {
    expect(directorySummary(i18next.t, [folderRow(june), fileRow(year)], 'photos/2024', 0)).toBe('1 folder · 1 file · 8 B');
  });

  it('says nothing of folders inside a folder that has none', () => {
    expect(directorySummary(i18next.t, [fileRow(year)], 'photos/2024', 1)).toBe('1 file · 8 B · 1 selected');
  });
});
