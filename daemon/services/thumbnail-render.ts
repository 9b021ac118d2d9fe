/**
 * Rendering thumbnails with sharp (its prebuilt libvips): loaded on first use, at most
 * `concurrentRenders` at once in the process, and only for bytes that start as a raster image.
 */
import type SharpFactory from 'sharp';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { OpenedFile } from '../storage/file-storage.js';

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

/**
 * What tests see of the renders: the most that ran at once, and a hook awaited inside a
 * render slot once the file's bytes are read (a test holds it to overwrite the file in the
 * window between reading and keeping the picture).
 */
export const renderProbe: { peak: number; afterRead: (() => Promise<void>) | null } = { peak: 0, afterRead: null };

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

/** The picture of an opened file with its longest edge `edge`; 415 `cannot_preview` for what has none. */
export function renderPicture(nimbus: NimbusContext, opened: OpenedFile, edge: number): Promise<Buffer> {
  return loadSharp(nimbus).then((sharp) => renderFile(sharp, opened, edge));
}

/** Renders of the same picture asked at once share one render. */
const inFlight = new Map<string, Promise<Buffer>>();

export function renderShared(entry: string, render: () => Promise<Buffer>): Promise<Buffer> {
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
export async function withRenderSlot<T>(render: () => Promise<T>): Promise<T> {
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
