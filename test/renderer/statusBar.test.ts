/** The status bar's words for the daemon (issue 10, item 15c). */
import { describe, expect, it } from 'vitest';
import type { DashInfo } from '../../shared/types';
// The UI's strings, in English.
import '../../renderer/i18n';
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
