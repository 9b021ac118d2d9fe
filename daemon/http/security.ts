/**
 * Small wrappers, one concern each (Syncthing's habit): the Host allowlist against DNS
 * rebinding, CORS for configured origins only, and response headers that make every
 * response inert in a browser unless it is the UI itself.
 */
import type { ServerResponse } from 'node:http';
import type { Context, Middleware } from 'koa';
import { ApiError } from '../errors.js';

/** The CSP of everything that is not the UI: nothing may run or load. */
export const INERT_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";
// media-src and frame-src allow blob: for the one case a link cannot carry the credential: a
// plain browser holding a key in the page previews from object URLs (renderer/api/links.ts).
export const UI_CSP =
  "default-src 'self'; img-src 'self' http: https: data: blob:; media-src 'self' blob:; frame-src 'self' blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: [string, string][] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Content-Security-Policy', INERT_CSP],
  ['Cache-Control', 'no-store'],
];

/** The same as one flat list (name, value, name, value…), the form node:http's writeHead takes fastest. */
export const SECURITY_HEADER_LIST: readonly string[] = SECURITY_HEADERS.flat();

/**
 * Headers that make any response inert in a browser; routes that serve the UI or a page relax
 * the CSP. The daemon's own responses (NimbusResponse, daemon/http/response.ts) add them when
 * they start; any other response (an app mounted on a plain server) gets them now.
 */
export function setSecurityHeaders(res: ServerResponse): void {
  if (addsSecurityHeaders(res)) return;
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
}

/** Marks a response class that adds the security headers itself when it starts (daemon/http/response.ts). */
export const ADDS_SECURITY_HEADERS = Symbol('adds security headers');

function addsSecurityHeaders(res: ServerResponse): boolean {
  return (res as { [ADDS_SECURITY_HEADERS]?: boolean })[ADDS_SECURITY_HEADERS] === true;
}

/** Hosts the daemon answers to: its loopback names with its port, plus configured extras. */
export function allowedHosts(port: number, extra: string[]): Set<string> {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  for (const h of extra) hosts.add(h.toLowerCase());
  return hosts;
}

/** Throws 403 for any Host header that is not the daemon's own (DNS rebinding). */
export function checkHost(host: string | undefined, allowed: Set<string>): void {
  if (!host || !allowed.has(host.toLowerCase())) throw new ApiError('forbidden_host', 'Host not allowed');
}

/** Resumable uploads' door (tus/door.ts) and the request headers tus 1.0 sends. */
const TUS_PATH = '/api/uploads';
const TUS_HEADERS = ', Tus-Resumable, Upload-Length, Upload-Offset, Upload-Metadata, Upload-Concat, X-HTTP-Method-Override';

/**
 * CORS only for configured origins, never "*". Returns true when it answered the request
 * itself (a preflight).
 */
export function applyCors(ctx: Context, granted: Set<string>): boolean {
  const origin = ctx.req.headers.origin ?? '';
  const allowed = origin !== '' && granted.has(origin);
  if (allowed) {
    ctx.vary('Origin');
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Expose-Headers', 'X-Total-Count, Content-Disposition, Content-Range');
  }
  if (ctx.method !== 'OPTIONS') return false;
  if (allowed) {
    const tus = ctx.path === TUS_PATH || ctx.path.startsWith(`${TUS_PATH}/`);
    // A tus client (tus-js-client, Uppy) on a configured origin needs its methods and headers.
    ctx.set('Access-Control-Allow-Methods', tus ? 'GET, POST, HEAD, PATCH, DELETE' : 'GET, POST');
    // Last-Event-ID: the UI resumes its event stream with it (not a CORS-safelisted header).
    ctx.set('Access-Control-Allow-Headers', `API-Key, Authorization, Content-Type, Last-Event-ID${tus ? TUS_HEADERS : ''}`);
    ctx.set('Access-Control-Max-Age', '600');
  }
  ctx.status = 204;
  return true;
}

/**
 * The security wrappers as one synchronous step before routing: the inert response headers,
 * the Host allowlist (403), CORS (answering a preflight itself). One middleware instead of
 * three saves two promise hops on every request. An OPTIONS that is no preflight goes on to
 * the routes `ownOptions` names (the WebDAV door's).
 */
export function checkHostAndCors(
  allowed: () => Set<string>,
  corsOrigins: string[],
  ownOptions: (path: string) => boolean = () => false,
): Middleware {
  const granted = new Set(corsOrigins);
  return (ctx, next) => {
    setSecurityHeaders(ctx.res);
    checkHost(ctx.req.headers.host, allowed());
    // WebDAV's OPTIONS (not a CORS preflight) is the door's to answer: its DAV and Allow headers.
    if (ctx.method === 'OPTIONS' && !ctx.get('Access-Control-Request-Method') && ownOptions(ctx.path)) return next();
    if (applyCors(ctx, granted)) return Promise.resolve();
    return next();
  };
}

/**
 * The daemon's own origins, for the cross-site rule: each allowed host over http://, and
 * NIMBUS_PUBLIC_URL's origin. Lowercase, as browsers send them.
 */
export function ownOrigins(hosts: Set<string>, publicUrl: string | null): Set<string> {
  const origins = new Set([...hosts].map((host) => `http://${host.toLowerCase()}`));
  if (publicUrl) origins.add(new URL(publicUrl).origin.toLowerCase());
  return origins;
}

/**
 * A cookie-authenticated request that changes something must come from a page of the
 * daemon's own origin: its Origin one of `origins`, or, with no Origin, `Sec-Fetch-Site:
 * same-origin`. Else 403 `cross_site_request` (docs/accounts.md, "Cross-site requests"):
 * SameSite=Strict alone does not cover sibling subdomains or old browsers.
 */
export function assertSameOrigin(ctx: Context, origins: Set<string>): void {
  const origin = namedOrigin(ctx);
  const same = origin ? origins.has(origin.toLowerCase()) : ctx.get('Sec-Fetch-Site') === 'same-origin';
  if (!same) throw new ApiError('cross_site_request', 'This request must come from a page of Nimbus itself');
}

/**
 * The request's Origin, or '' when it names none. A form posted from one of the daemon's own
 * pages (a share link's password, an upload link) says `Origin: null`: the pages send no
 * referrer (Referrer-Policy: no-referrer), and browsers then hide a form's origin too. Such a
 * request is the daemon's own only if the browser says so with `Sec-Fetch-Site: same-origin`
 * (an opaque origin from elsewhere, a sandboxed frame or a data: page, is cross-site there).
 */
function namedOrigin(ctx: Context): string {
  const origin = ctx.get('Origin');
  return origin === 'null' ? (ctx.get('Sec-Fetch-Site') === 'same-origin' ? '' : 'null') : origin;
}

/** A public POST of /api/auth (sign-in, registration, reset) that names another site's Origin: 403 (no login CSRF). */
export function assertNoForeignOrigin(ctx: Context, origins: Set<string>): void {
  const origin = namedOrigin(ctx);
  if (origin && !origins.has(origin.toLowerCase()))
    throw new ApiError('cross_site_request', 'This request must come from a page of Nimbus itself');
}
