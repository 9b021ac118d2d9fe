/**
 * `folders.download`: a folder, some files, or a user's whole storage as one streamed zip
 * (docs/explorer.md, "Zips"). What goes in is planned from the file index before the first
 * byte (zip-plan.ts); the bytes are then read one file at a time through the storage's
 * symlink-refusing open, and only as fast as the client takes them: memory stays flat whatever the size, and yazl switches to ZIP64 when offsets or
 * sizes pass 4 GiB.
 */
import { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { OpenedFile } from '../storage/file-storage.js';
import { mimeTypeOf } from './records.js';
import type { ZipItem, ZipPlan } from './zip-plan.js';

/**
 * Deflate only what is text-like (text/*, JSON, XML, JavaScript, SVG, CSV…): it shrinks well
 * and is small. Everything else is stored: images, audio, video, archives, PDFs and office
 * files are already compressed, and deflating gigabytes of them would cost CPU for nothing
 * (the bench's zip row streams at disk speed only because of it).
 */
export function shouldDeflate(name: string): boolean {
  const type = mimeTypeOf(name);
  return (
    type.startsWith('text/') ||
    /^application\/(json|ld\+json|xml|xhtml\+xml|javascript|x-javascript|ecmascript|x-sh|x-httpd-php|sql|yaml|x-yaml|toml|rtf)$/.test(
      type,
    ) ||
    type === 'image/svg+xml' ||
    type.endsWith('+xml') ||
    type.endsWith('+json')
  );
}

/** What streaming a zip may report: a file it left out, or a read that failed after bytes went out. */
export interface ZipEvents {
  /** A planned file that was gone (or no longer a regular file) when its turn came. */
  skipped?(item: ZipItem): void;
  /** A read failed mid-entry: the zip cannot be finished, and the stream is destroyed with this error. */
  failed?(err: Error): void;
}

let yazlModule: typeof import('yazl') | null = null;
/** yazl, required on the first zip rather than at start (~35 ms of the daemon's start-up). */
const yazl = () => (yazlModule ??= createRequire(import.meta.url)('yazl') as typeof import('yazl'));
export const preloadZip = (): void => void yazl();

/**
 * The zip's bytes as a stream. Files are opened one at a time, each only once the previous
 * one has been read to its end, so at most one file is open; a file that vanished since the
 * plan is left out and the zip stays valid. Destroying the returned stream (the client went
 * away) closes the open file and opens no other. Settles once the first file's bytes can be
 * read: a store that cannot read them rejects (503) before a byte of the zip is sent.
 */
export async function streamZip(nimbus: NimbusContext, plan: ZipPlan, events: ZipEvents = {}): Promise<Readable> {
  const zip = new (yazl().ZipFile)();
  // yazl's output is a PassThrough; typed as NodeJS.ReadableStream by @types/yazl.
  const output = zip.outputStream as Readable;
  let current: Readable | null = null;
  let stopped = false;
  const stop = () => {
    stopped = true;
    current?.destroy();
  };
  output.once('close', stop);
  zip.on('error', (err: Error) => {
    stop();
    events.failed?.(err);
    output.destroy(err);
  });
  for (const directory of plan.directories) zip.addEmptyDirectory(directory);

  const addNext = async (i: number): Promise<void> => {
    if (stopped) return;
    if (i === plan.items.length) {
      zip.end();
      return;
    }
    const item = plan.items[i];
    const opened = await openForZip(nimbus, plan.username, item);
    if (stopped) {
      void opened?.close();
      return;
    }
    if (!opened) {
      events.skipped?.(item);
      return addNext(i + 1);
    }
    const options = { mtime: new Date(opened.mtimeMs), compress: shouldDeflate(item.file) };
    if (opened.size === 0) {
      void opened.close();
      zip.addBuffer(Buffer.alloc(0), item.entry, options);
      return addNext(i + 1);
    }
    // Up to the size seen at open: a file appended to meanwhile is taken as it was. No
    // `size` for yazl: a file cut short by another program ends its entry early (the data
    // descriptor says how long) instead of failing the whole zip. The stream releases the
    // file at its end, or when destroyed.
    const stream = await opened.stream().catch(async (err: unknown) => {
      await opened.close();
      throw err;
    });
    if (stopped) {
      stream.destroy();
      return;
    }
    current = stream;
    stream.once('error', (err) => zip.emit('error', err));
    // The next file is opened once this one is closed: never two open at once.
    stream.once('close', () => {
      current = null;
      void addNext(i + 1).catch((err: Error) => zip.emit('error', err));
    });
    zip.addReadStream(stream, item.entry, options);
  };
  try {
    // Up to the first file's stream: later failures reach the client as a cut-off zip (zip.on('error') above).
    await addNext(0);
  } catch (err) {
    stop();
    output.destroy();
    throw err;
  }
  return output;
}

/** Opens a planned file; null when it is no longer there (removed, renamed, replaced by a link). */
async function openForZip(nimbus: NimbusContext, username: string, item: ZipItem): Promise<OpenedFile | null> {
  try {
    return await nimbus.storage.openFile(username, item.folder, item.file);
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.status === 404;
