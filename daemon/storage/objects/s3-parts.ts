/** How S3ObjectStore cuts a body into the parts of a multipart upload (lib-storage's Upload). */
/**
 * S3's smallest part, three in flight. lib-storage holds every part in flight plus the one
 * it gathers and a copy from its Buffer.concat: measured on a 1 GiB put to Swift (RSS peak
 * over the start, two rounds), 8 MiB x 4 grew 92-130 MiB, 8 MiB x 2 27-58 MiB, 5 MiB x 3
 * 7-25 MiB, at the same rate (20-28 MiB/s, Swift's own CPU the limit). The price: S3 allows
 * 10,000 parts, so one object is at most ~48 GiB (78 GiB with 8 MiB parts).
 */
export const PART_SIZE = 5 * 1024 * 1024;
export const PARTS_IN_FLIGHT = 3;
/** S3's limit on the parts of one multipart upload. */
const MAX_PARTS = 10_000;
const MIB = 1024 * 1024;

/**
 * The part size for a body of `expectedBytes`: `base` (5 MiB keeps a 1 GiB upload's memory
 * flat), or whole MiB large enough to stay within 10,000 parts (5 MiB parts would end a
 * declared body at ~48 GiB). A body of unknown length gets `base`.
 */
export function partSizeFor(expectedBytes: number | undefined, base: number): number {
  if (expectedBytes === undefined || !Number.isFinite(expectedBytes) || expectedBytes <= base * MAX_PARTS) return base;
  return Math.ceil(expectedBytes / MAX_PARTS / MIB) * MIB;
}
