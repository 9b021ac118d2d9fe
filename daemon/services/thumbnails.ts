/**
 * files.thumbnail: a small WebP picture of an image file, made with sharp (its prebuilt
 * libvips) and kept on disk in `<data-dir>/cache/thumbnails/` (thumbnail-cache.ts).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { NimbusContext } from '../context.js';
import type { OpenedFile } from '../storage/file-storage.js';
import { requireUser } from './records.js';
import { ThumbnailCache, type ThumbnailSource } from './thumbnail-cache.js';
import { renderPicture, renderShared, THUMBNAIL_LIMITS, withRenderSlot } from './thumbnail-render.js';

/** What names a picture: its ETag and Last-Modified (the shape daemon/http/conditional.ts checks). */
export interface ThumbnailValidators {
  etag: string;
  lastModified: string;
}

/**
 * A picture about to be answered: what names it, for the conditional checks that come before
 * any work, and its bytes, made only if they are sent. Close it once answered.
 */
export interface PendingThumbnail {
  readonly validators: ThumbnailValidators;
  /** The picture, from the cache or rendered now; 415 `cannot_preview` for what has none. */
  bytes(): Promise<Buffer>;
  close(): Promise<void>;
}

/** Pictures rendered so far, per cache directory: tests prove a hit is served without sharp. */
export const renderCounts = new Map<string, number>();

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
 * (SVG is never rasterised), and for one over the limits. Its validators come from the
 * opened file alone, so a client holding the current picture costs no render.
 */
export async function openThumbnail(nimbus: NimbusContext, source: ThumbnailSource, edge: number): Promise<PendingThumbnail> {
  requireUser(nimbus, source.username);
  const cache = thumbnailCacheOf(nimbus);
  // Read before opening: a change seen after this must not let this render be kept.
  const generation = cache.generation(source);
  const opened = await nimbus.storage.openFile(source.username, source.folder, source.file);
  const key = identityKey(opened, edge);
  return {
    validators: {
      etag: opened.identityIsStrong ? `"${key}"` : `W/"${key}"`,
      lastModified: new Date(opened.mtimeMs).toUTCString(),
    },
    bytes: () => pictureOf(nimbus, cache, { source, opened, edge, key, generation }),
    close: () => opened.close(),
  };
}

/** One picture to make: of what, under which key, and the cache generation read before the file was opened. */
interface PictureJob {
  source: ThumbnailSource;
  opened: OpenedFile;
  edge: number;
  key: string;
  generation: number;
}

/**
 * The kept picture, or a new one, kept if it can be. Not while the file may still change
 * unseen (`identityIsStrong` false: changed less than a second ago, see open-file.ts): a write
 * within the same clock tick keeps the identity, and with it the key, so a picture of the
 * bytes read now could be served for other bytes for as long as the file stays as it is. Such
 * a picture is rendered for its answer alone, neither kept nor shared with a render under way;
 * the first answer once the file settles renders and keeps the picture of its final bytes.
 */
async function pictureOf(nimbus: NimbusContext, cache: ThumbnailCache, job: PictureJob): Promise<Buffer> {
  const render = () => {
    renderCounts.set(cache.root, (renderCounts.get(cache.root) ?? 0) + 1);
    return renderPicture(nimbus, job.opened, job.edge);
  };
  if (!job.opened.identityIsStrong) return withRenderSlot(render);
  const entry = cache.entryPath(job.source, job.key);
  const kept = await cache.read(entry);
  if (kept) return kept;
  const bytes = await renderShared(entry, render);
  // A cache that cannot be written (a full disk) costs a render next time, not this answer.
  await cache
    .write(job.source, entry, bytes, job.generation)
    .catch((err: Error) => nimbus.log(`Nimbus: a thumbnail was not kept: ${err.message}`));
  return bytes;
}

/**
 * What names these exact bytes at this edge: the opened file's identity (on disk its inode,
 * size, and modification and change times to the nanosecond, read from the open file
 * itself; an object's id and ETag). A file replaced or written in place gets a new key,
 * even within the same millisecond. A file that has not settled gets a key of its own: the
 * weak ETag made from it then never matches the file's strong one once it settles (the
 * bytes it named may have been rewritten within the same tick), so a browser revalidating
 * it gets the final picture, not a 304 for the one it holds.
 */
function identityKey(opened: OpenedFile, edge: number): string {
  const settling = opened.identityIsStrong ? '' : ':settling';
  return createHash('sha256').update(`${opened.identity}:${edge}${settling}`).digest('hex').slice(0, 32);
}
