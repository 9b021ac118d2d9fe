import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { errnoCode } from '../util/errno.js';

/** Lock files held by daemons of this process (the Electron shell may start more than one). */
const HELD_IN_THIS_PROCESS = new Set<string>();

/**
 * One daemon per data directory: an exclusive lock file holding the owner's pid.
 * A lock whose process is gone is stale and taken over.
 */
export class DataDirLock {
  readonly #file: string;
  #held = false;

  constructor(file: string) {
    this.#file = path.resolve(file);
  }

  acquire(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.#file, 'wx', 0o600);
        writeSync(fd, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
        closeSync(fd);
        this.#held = true;
        HELD_IN_THIS_PROCESS.add(this.#file);
        return;
      } catch (err) {
        if (errnoCode(err) !== 'EEXIST') throw err;
        const owner = readOwner(this.#file);
        // Our own pid in the lock is either a daemon of this process (held: refuse) or a
        // leftover of an earlier process that had the same pid, as in a container (stale).
        const heldHere = owner === process.pid && HELD_IN_THIS_PROCESS.has(this.#file);
        if (heldHere || (owner !== null && owner !== process.pid && isAlive(owner))) {
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
    HELD_IN_THIS_PROCESS.delete(this.#file);
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
    return errnoCode(err) === 'EPERM';
  }
}
