import type { NimbusClient } from '../../api/client';

/** The most of a text file the previewer reads (docs/explorer.md: the first 1 MiB). */
export const TEXT_PREVIEW_BYTES = 1024 * 1024;

export interface TextHead {
  text: string;
  /** Bytes read. */
  shown: number;
  /** The file's whole size, as the daemon said (Content-Range), else `shown`. */
  total: number;
}

/**
 * The first MiB of a text file, by a Range request to its inline link: a 2 GiB log costs one
 * MiB. Bytes are UTF-8 (the daemon serves text as `text/plain; charset=utf-8`); a character cut
 * at the end of the range is left out rather than shown as a replacement mark.
 */
export async function fetchTextHead(client: NimbusClient, url: string, signal?: AbortSignal): Promise<TextHead> {
  const headers: Record<string, string> = { Range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` };
  // A session's cookie goes by itself (same origin); a page holding a key must send it.
  if (client.connection.apiKey !== null) headers['API-Key'] = client.connection.apiKey;
  const response = await fetch(url, { headers, signal, cache: 'no-store' });
  // 416: the range starts past the end, which only an empty file does.
  if (response.status === 416) return { text: '', shown: 0, total: 0 };
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`.trim());
  const bytes = new Uint8Array(await response.arrayBuffer());
  // A daemon that ignored the Range sends everything: show the first MiB of it all the same.
  const head = bytes.subarray(0, TEXT_PREVIEW_BYTES);
  const total = totalFromContentRange(response.headers.get('Content-Range')) ?? bytes.length;
  const text = new TextDecoder('utf-8').decode(head, { stream: head.length < total });
  return { text, shown: head.length, total };
}

/** `bytes 0-1048575/5242880` → 5242880; null when absent or the total is unknown (`*`). */
export function totalFromContentRange(header: string | null): number | null {
  const match = header ? /\/(\d+)\s*$/.exec(header) : null;
  return match ? Number(match[1]) : null;
}
