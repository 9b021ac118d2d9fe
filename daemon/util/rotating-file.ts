/** The daemon's log file (daemon/logging.ts): appended to synchronously and rotated by size. */
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A file appended to synchronously, renamed to `<name>.1.log` (and older ones shifted up, the
 * oldest dropped) when it passes `maxBytes`. A failure to write or rotate is said once on
 * stderr and never stops the daemon.
 */
export class RotatingFile {
  #fd: number | null = null;
  #size = 0;
  #failed = false;
  #noRotate = false;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly keep: number,
  ) {
    const dir = dirname(this.path);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700); // also when it was there already: it is the owner's business
      this.#open();
    } catch (err) {
      this.#fail('open', err);
    }
  }

  #open(): void {
    this.#fd = openSync(this.path, 'a', 0o600);
    this.#size = fstatSync(this.#fd).size;
  }

  write(line: string | Uint8Array): void {
    if (this.#fd === null) return;
    try {
      // Two overloads of writeSync, one per kind.
      this.#size += typeof line === 'string' ? writeSync(this.#fd, line) : writeSync(this.#fd, line);
      if (this.#size >= this.maxBytes) this.#rotate();
    } catch (err) {
      this.#fail('write', err);
    }
  }

  #rotate(): void {
    if (this.#noRotate) return;
    closeSync(this.#fd!);
    this.#fd = null;
    const older = (n: number) => this.path.replace(/\.log$/, `.${n}.log`);
    try {
      rmSync(older(this.keep), { force: true });
      for (let n = this.keep - 1; n >= 1; n--) if (existsSync(older(n))) renameSync(older(n), older(n + 1));
      renameSync(this.path, older(1));
    } catch (err) {
      // Keep writing to the one file rather than lose lines; say so once.
      this.#noRotate = true;
      process.stderr.write(`Nimbus: could not rotate the log file ${this.path} (${(err as Error).message}); it keeps growing.\n`);
    }
    this.#open();
  }

  #fail(what: string, err: unknown): void {
    if (this.#fd !== null) {
      try {
        closeSync(this.#fd);
      } catch {
        // already unusable
      }
      this.#fd = null;
    }
    if (this.#failed) return;
    this.#failed = true;
    process.stderr.write(`Nimbus: could not ${what} the log file ${this.path} (${(err as Error).message}); logging to it stops.\n`);
  }

  close(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
  }
}
