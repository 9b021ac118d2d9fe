/** What is said when the OS watch limit is hit, and how often the fallback reconciles. */
import { describe, expect, it } from 'vitest';
import { fallbackReconcileMs, limitMessage } from '../../../daemon/storage/live/fallback.js';

describe('limitMessage', () => {
  it('names the inotify watch limit, its value and the sysctl that raises it', () => {
    const line = limitMessage('ENOSPC', 2000, () => '8192');
    expect(line).toContain('fs.inotify.max_user_watches = 8192');
    expect(line).toMatch(/sudo sysctl fs\.inotify\.max_user_watches=\d+/);
    expect(line).toContain('every 2 s');
  });

  it('names the open-file limit for EMFILE and ENFILE', () => {
    expect(limitMessage('EMFILE', 2000, () => '128')).toContain(
      'too many open files (EMFILE; see "ulimit -n", fs.inotify.max_user_instances = 128)',
    );
    expect(limitMessage('ENFILE', 2000, () => '128')).toContain('ENFILE');
  });
});

describe('fallbackReconcileMs', () => {
  it('is the configured interval, at most a minute; a disabled one (0) is a minute', () => {
    expect(fallbackReconcileMs(10_000)).toBe(10_000);
    expect(fallbackReconcileMs(600_000)).toBe(60_000);
    expect(fallbackReconcileMs(0)).toBe(60_000);
  });
});
