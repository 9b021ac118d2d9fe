import { link, open, rename, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { errnoCode } from '../util/errno.js';
import { failpoint } from '../util/failpoints.js';
import { fsyncDirectory } from './fsync.js';

/**
 * A lowdb adapter whose write survives a crash and a power cut: write a temp file,
 * fsync it, rename it over the target, fsync the directory. lowdb's own JSONFile
 * renames but never fsyncs. The version being replaced stays as `<file>.bak` (a hard
 * link, no copy): the last good state, should the file ever be damaged.
 */
export class DurableJSONFile<T> implements Adapter<T> {
  readonly #file: string;
  readonly #temp: string;
  readonly #backup: string;

  constructor(file: string) {
    this.#file = file;
    this.#temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
    this.#backup = `${file}.bak`;
  }

  /** The parsed file, or null when there is no file yet; a file that does not parse throws. */
  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return null;
      throw err;
    }
    return JSON.parse(text) as T;
  }

  async write(data: T): Promise<void> {
    const text = JSON.stringify(data);
    const handle = await open(this.#temp, 'w', 0o600);
    try {
      failpoint('store.write');
      await handle.writeFile(text, 'utf8');
      failpoint('store.fsync');
      await handle.sync();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await unlink(this.#temp).catch(() => undefined);
      throw err;
    }
    await handle.close();
    await this.#keepBackup();
    failpoint('store.rename');
    await rename(this.#temp, this.#file);
    await fsyncDirectory(path.dirname(this.#file));
  }

  async #keepBackup(): Promise<void> {
    const staged = `${this.#backup}.tmp`;
    await unlink(staged).catch(() => undefined);
    try {
      await link(this.#file, staged);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return; // first write: nothing to keep
      throw err;
    }
    await rename(staged, this.#backup);
  }
}
