import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

/**
 * One daemon per data directory: an exclusive lock file holding the owner's pid.
 * A lock whose process is gone is stale and taken over.
 */
export class DataDirLock {
  readonly #file: string;
  #held = false;

  constructor(file: string) {
    this.#file = file;
  }

  acquire(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.#file, 'wx', 0o600);
        writeSync(fd, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
        closeSync(fd);
        this.#held = true;
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const owner = readOwner(this.#file);
        if (owner !== null && owner !== process.pid && isAlive(owner)) {
          throw new LockHeldError(this.#file, owner);
        }
        unlinkSync(this.#file);
      }
    }
    throw new LockHeldError(this.#file, null);
  }

  release(): void {
    if (!this.#held) return;
    this.#held = false;
    try {
      unlinkSync(this.#file);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

export class LockHeldError extends Error {
  constructor(file: string, pid: number | null) {
    super(
      `Another Nimbus daemon${pid ? ` (pid ${pid})` : ''} is using this data directory (lock ${file}). ` +
        'Stop it first, or choose another --data-dir.',
    );
    this.name = 'LockHeldError';
  }
}

function readOwner(file: string): number | null {
  try {
    const pid = Number((JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
