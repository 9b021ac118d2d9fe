/** Pictures for the thumbnail tests, and files.thumbnail called over real HTTP. */
import sharp from 'sharp';
import { expect, vi } from 'vitest';
import type { TestDaemon } from './daemon.js';

/** A solid picture of the given size and colour. */
export function picture(width: number, height: number, format: 'png' | 'jpeg' | 'webp' | 'gif' = 'png', r = 200): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g: 40, b: 40 } } })
    .toFormat(format)
    .toBuffer();
}

export interface ThumbnailAnswer {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** files.thumbnail with the admin key; the body as bytes (fetch's text() would mangle a picture). */
export async function thumbnail(
  t: TestDaemon,
  username: string,
  file: string,
  extra: { size?: number; folder?: string } = {},
  headers: Record<string, string> = {},
): Promise<ThumbnailAnswer> {
  const query = new URLSearchParams({ username, file, ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v)])) });
  const res = await fetch(`${t.url}/api/files/thumbnail?${query}`, { headers: { 'API-Key': t.key, ...headers } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The red of a picture's first pixel. */
export async function redOf(bytes: Buffer): Promise<number> {
  const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return data[0];
}

/**
 * Waits until a file has settled: on disk, a file changed less than a second ago is named by a
 * weak ETag (a write within the same clock tick may not move its times), and its thumbnail is
 * rendered for that answer alone, never kept. The download's ETag says when it is strong; an
 * object's is at once.
 */
export async function untilSettled(t: TestDaemon, username: string, file: string, folder?: string): Promise<void> {
  const params = { username, file, ...(folder === undefined ? {} : { folder }) };
  await vi.waitFor(
    async () => {
      const res = await t.api('HEAD', '/api/files/download', params);
      expect(res.status).toBe(200);
      expect(res.headers.get('ETag')).toMatch(/^"/);
    },
    { timeout: 10_000, interval: 100 },
  );
}
