/** What is said when the OS watch limit is hit, how often the fallback reconciles, waiting for the storage directory to come back. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORAGE_MARKER } from '../../../daemon/storage/availability.js';
import { fallbackReconcileMs, limitMessage, logOncePerCode, waitForStorage } from '../../../daemon/storage/live/fallback.js';

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

describe('waitForStorage', () => {
  it('calls back once the storage directory has its marker again, then stops', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-wait-'));
    let calls = 0;
    const stop = waitForStorage(dir, () => calls++);
    try {
      await new Promise((r) => setTimeout(r, 2500));
      expect(calls).toBe(0);
      await writeFile(path.join(dir, STORAGE_MARKER), '');
      await expect.poll(() => calls, { timeout: 5000 }).toBe(1);
      await new Promise((r) => setTimeout(r, 2500));
      expect(calls).toBe(1);
    } finally {
      stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 15_000);
});

describe('logOncePerCode', () => {
  it('logs each errno code once, and never a name gone meanwhile', () => {
    const lines: string[] = [];
    const logError = logOncePerCode('/srv/storage', (line) => lines.push(line));
    logError(Object.assign(new Error('denied'), { code: 'EACCES' }));
    logError(Object.assign(new Error('denied again'), { code: 'EACCES' }));
    logError(Object.assign(new Error('gone'), { code: 'ENOENT' }));
    logError(new Error('no code'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('watching /srv/storage failed (EACCES): denied');
    expect(lines[1]).toContain('(error): no code');
  });
});
