/**
 * The byte-level pieces both directions of `nimbus migrate` share: a sha256 taken while a
 * stream passes through (so each file is read once on the way over), the sha256 of a file or
 * object read back, and a small pool that runs a few copies at once.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { inBinaryUnits } from '../util/binary-units.js';

/** Files copied at once: enough to hide the latency of each request, few enough to keep memory flat (each S3 put holds up to 4 parts of 8 MiB). */
export const PARALLEL_FILES = 4;

/** A pass-through that hashes what goes through it; `digest()` once the stream has ended. */
export function hashingStream(): Transform & { digest(): string; bytes(): number } {
  const hash = createHash('sha256');
  let total = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      total += chunk.length;
      callback(null, chunk);
    },
  });
  let digest: string | null = null;
  return Object.assign(stream, {
    digest: () => (digest ??= hash.digest('hex')),
    bytes: () => total,
  });
}

/** sha256 (hex) and length of everything a stream yields, read to its end. */
export async function hashOf(source: Readable): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(
    source,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        size += chunk.length;
        callback();
      },
    }),
  );
  return { sha256: hash.digest('hex'), size };
}

export const hashOfFile = (file: string) => hashOf(createReadStream(file));

export { forEachLimit } from '../util/for-each-limit.js';

/** "1.2 GiB": bytes as people read them in a summary. */
export function formatBytes(bytes: number): string {
  const scaled = inBinaryUnits(bytes);
  return scaled ? `${scaled.value.toFixed(1)} ${scaled.unit}` : `${bytes} bytes`;
}
