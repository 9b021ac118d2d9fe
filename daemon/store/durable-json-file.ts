import { open, rename, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';

/**
 * A lowdb adapter whose write survives a crash and a power cut: write a temp file,
 * fsync it, rename it over the target, fsync the directory. lowdb's own JSONFile
 * renames but never fsyncs.
 */
export class DurableJSONFile<T> implements Adapter<T> {
  readonly #file: string;
  readonly #temp: string;

  constructor(file: string) {
    this.#file = file;
    this.#temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  }

  /** The parsed file, or null when there is no file yet; a file that does not parse throws. */
  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    return JSON.parse(text) as T;
  }

  async write(data: T): Promise<void> {
    const text = JSON.stringify(data);
    const handle = await open(this.#temp, 'w', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await unlink(this.#temp).catch(() => undefined);
      throw err;
    }
    await handle.close();
    await rename(this.#temp, this.#file);
    await syncDirectory(path.dirname(this.#file));
  }
}

/** fsync a directory so a rename inside it is durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
