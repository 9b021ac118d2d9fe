/**
 * files.thumbnail: a small WebP picture of an image file, made with sharp (its prebuilt
 * libvips) and kept on disk in `<data-dir>/cache/thumbnails/` (thumbnail-cache.ts).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type SharpFactory from 'sharp';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { OpenedFile } from '../storage/file-storage.js';
import { requireUser } from './records.js';
import { ThumbnailCache, type ThumbnailSource } from './thumbnail-cache.js';

/** The limits of what is rendered and kept (README "Previews and thumbnails"). */
export const THUMBNAIL_LIMITS = {
  /** Larger images are refused (415) before any pixel is decoded: a decompression bomb stops at its header. */
  maxPixels: 100_000_000,
  /** Larger files are refused (415): the bytes are read into memory once, so what is sniffed is what is rendered. */
  maxInputBytes: 64 * 1024 * 1024,
  /** Renders at once, in the whole process: each holds its input and decoded pixels in memory. */
  concurrentRenders: 2,
  /** The disk cache's cap; the least recently used pictures go first. */
  cacheBytes: 256 * 1024 * 1024,
};

let loading: Promise<typeof SharpFactory> | null = null;
let loadFailureLogged = false;

/**
 * sharp, loaded on the first render: the daemon starts without its native library (quicker,
 * and a machine where it cannot load still runs everything else; its thumbnails are 415).
 */
function loadSharp(nimbus: NimbusContext): Promise<typeof SharpFactory> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    // One libvips thread per image: the daemon shares the machine (and libuv's pool) with file I/O.
    // libvips' own operation cache would only duplicate the disk cache in memory.
    sharp.concurrency(1);
    sharp.cache(false);
    return sharp;
  });
  return loading.catch((err: Error) => {
    if (!loadFailureLogged) nimbus.log(`Nimbus: thumbnails are off, sharp did not load: ${err.message}`);
    loadFailureLogged = true;
    throw new ApiError('cannot_preview', 'No preview for this file: thumbnails are not available on this machine');
  });
}

/** A picture to send: the ETag that names it, and its bytes (null: the client's copy is current, a 304). */
export interface Thumbnail {
  etag: string;
  bytes: Buffer | null;
}

/** Pictures rendered so far, per cache directory: tests prove a hit is served without sharp. */
export const renderCounts = new Map<string, number>();

/**
 * What tests see of the renders: the most that ran at once, and a hook awaited inside a
 * render slot once the file's bytes are read (a test holds it to overwrite the file in the
 * window between reading and keeping the picture).
 */
export const renderProbe: { peak: number; afterRead: (() => Promise<void>) | null } = { peak: 0, afterRead: null };

const caches = new WeakMap<NimbusContext, ThumbnailCache>();

/** The daemon's cache, made (and subscribed to the index's changes) on first use. */
export function thumbnailCacheOf(nimbus: NimbusContext): ThumbnailCache {
  let cache = caches.get(nimbus);
  if (!cache) {
    cache = new ThumbnailCache(path.join(nimbus.config.dataDir, 'cache', 'thumbnails'), THUMBNAIL_LIMITS.cacheBytes, nimbus.index);
    caches.set(nimbus, cache);
  }
  return cache;
}

/**
 * The picture of a user's file with its longest edge `edge` (never enlarged), from the
 * cache or rendered now; 415 `cannot_preview` for anything but a raster image sharp reads
 * (SVG is never rasterised), and for one over the limits. `ifNoneMatch` is checked before
 * any work: a client holding the current picture gets no bytes (a 304).
 */
export async function thumbnailOf(nimbus: NimbusContext, source: ThumbnailSource, edge: number, ifNoneMatch: string): Promise<Thumbnail> {
  requireUser(nimbus, source.username);
  const cache = thumbnailCacheOf(nimbus);
  // Read before opening: a change seen after this must not let this render be kept.
  const generation = cache.generation(source);
  const opened = await nimbus.storage.openFile(source.username, source.folder, source.file);
  try {
    const key = identityKey(opened, edge);
    const etag = `"${key}"`;
    if (ifNoneMatch.split(/\s*,\s*/).includes(etag)) return { etag, bytes: null };
    const entry = cache.entryPath(source, key);
    const kept = await cache.read(entry);
    if (kept) return { bytes: kept, etag };
    const bytes = await renderOnce(entry, () => {
      renderCounts.set(cache.root, (renderCounts.get(cache.root) ?? 0) + 1);
      return loadSharp(nimbus).then((sharp) => renderFile(sharp, opened, edge));
    });
    // A cache that cannot be written (a full disk) costs a render next time, not this answer.
    await cache
      .write(source, entry, bytes, generation)
      .catch((err: Error) => nimbus.log(`Nimbus: a thumbnail was not kept: ${err.message}`));
    return { bytes, etag };
  } finally {
    await opened.close();
  }
}

/**
 * What names these exact bytes at this edge: the opened file's identity (on disk its inode,
 * size, and modification and change times to the nanosecond, read from the open file
 * itself; an object's id and ETag). A file replaced or written in place gets a new key,
 * even within the same millisecond.
 */
function identityKey(opened: OpenedFile, edge: number): string {
  return createHash('sha256').update(`${opened.identity}:${edge}`).digest('hex').slice(0, 32);
}

/** Renders of the same picture asked at once share one render. */
const inFlight = new Map<string, Promise<Buffer>>();

function renderOnce(entry: string, render: () => Promise<Buffer>): Promise<Buffer> {
  let pending = inFlight.get(entry);
  if (!pending) {
    pending = withRenderSlot(render).finally(() => inFlight.delete(entry));
    inFlight.set(entry, pending);
  }
  return pending;
}

let running = 0;
const waiting: (() => void)[] = [];

/** Runs `render` once fewer than `concurrentRenders` others run (FIFO). */
async function withRenderSlot<T>(render: () => Promise<T>): Promise<T> {
  if (running >= THUMBNAIL_LIMITS.concurrentRenders) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  renderProbe.peak = Math.max(renderProbe.peak, running);
  try {
    return await render();
  } finally {
    // The slot passes straight to the next waiter (running stays the same), or is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

const cannotPreview = (why: string) => new ApiError('cannot_preview', `No preview for this file: ${why}`);

/** Formats whose decoders are worth exposing to users' bytes: raster images only. */
const RASTER_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'heif']);

async function renderFile(sharp: typeof SharpFactory, opened: OpenedFile, edge: number): Promise<Buffer> {
  if (opened.size > THUMBNAIL_LIMITS.maxInputBytes) throw cannotPreview('the file is too large');
  // One read: the bytes sniffed are the bytes decoded (the file may change meanwhile; this copy cannot).
  const input = await opened.read();
  await renderProbe.afterRead?.();
  // Decided from the bytes, never the name, before sharp sees them: an SVG (whatever it is
  // called) never reaches librsvg, whose documents may refer to other files.
  if (!sniffRaster(input)) throw cannotPreview('not an image');
  try {
    // failOn 'error': a photo with a harmless warning (a stray EXIF byte) still gets a picture; broken data does not.
    const image = sharp(input, { failOn: 'error', limitInputPixels: THUMBNAIL_LIMITS.maxPixels, autoOrient: true });
    const meta = await image.metadata();
    if (!RASTER_FORMATS.has(meta.format)) throw cannotPreview('not an image');
    if ((meta.width ?? 0) * (meta.height ?? 0) > THUMBNAIL_LIMITS.maxPixels) throw cannotPreview('the image is too large');
    return await image.resize(edge, edge, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw cannotPreview('the image could not be read');
  }
}

/** Whether the bytes start as a raster image of a format in RASTER_FORMATS. */
export function sniffRaster(b: Buffer): boolean {
  const ascii = (from: number, to: number) => b.toString('latin1', from, to);
  if (b.length < 12) return false;
  if (b[0] === 0x89 && ascii(1, 8) === 'PNG\r\n\x1a\n') return true;
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return true; // JPEG
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return true;
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return true;
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') return true; // TIFF
  // HEIF/AVIF: an ISO box `ftyp` with an image brand (a video's ftyp is not a picture).
  return ascii(4, 8) === 'ftyp' && ['avif', 'avis', 'heic', 'heix', 'mif1', 'msf1'].includes(ascii(8, 12));
}
