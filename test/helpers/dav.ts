/** WebDAV requests to a test daemon's /dav/ door over node:http, with HTTP Basic credentials. */
import { call, type CallOptions, type Resp } from './accounts.js';
import type { TestDaemon } from './daemon.js';

/** Basic credentials for a username and a password (or a key as an app password). */
export const basic = (username: string, password: string): string => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

export interface DavOptions extends Omit<CallOptions, 'method' | 'key' | 'cookie'> {
  /** Username and password (or key); none sends no Authorization. */
  auth?: [string, string] | null;
}

/** One WebDAV request: `path` below the daemon (`/dav/ana/x`). */
export function dav(t: Pick<TestDaemon, 'port' | 'url'>, method: string, path: string, options: DavOptions = {}): Promise<Resp> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers.Authorization = basic(...options.auth);
  return call(t, path, { ...options, method, headers, origin: options.origin ?? null });
}

/** The hrefs of a multistatus answer, decoded. */
export function hrefs(res: Resp): string[] {
  return [...res.text.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map((m) => decodeURIComponent(m[1]));
}

/** A PROPFIND body asking for these DAV: properties. */
export const propfindBody = (...props: string[]): string =>
  `<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop>${props.map((p) => `<D:${p}/>`).join('')}</D:prop></D:propfind>`;
