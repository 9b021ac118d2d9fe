/**
 * Black-box helpers for issue 12 (docs/accounts.md): raw HTTP through node:http, so a test
 * controls every header (Cookie, Origin, Sec-Fetch-Site, Host) and the client's address
 * (127.0.0.x), and reads Set-Cookie exactly as sent. Nothing here depends on the daemon's
 * internal names: only on the routes and fields the contract gives.
 */
import http from 'node:http';
import type { TestDaemon } from './daemon.js';
import { rememberSessionPassword, sessionPasswordOf } from './session-passwords.js';

export const COOKIE = 'nimbus_session';

export interface Resp {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
}

/** Who makes a request: a session cookie, a key, or nobody. */
export interface Cred {
  cookie?: string | null;
  key?: string | null;
}

export interface CallOptions extends Cred {
  method?: string;
  /** Sent in the query string. */
  query?: Record<string, string>;
  /** An object is sent as JSON (or urlencoded with `form`); a string or Buffer as it is. */
  body?: Record<string, string> | string | Buffer;
  form?: boolean;
  /**
   * The Origin header. Left undefined, a cookie POST carries the daemon's own origin (as a
   * browser on the UI would send); null sends none.
   */
  origin?: string | null;
  headers?: Record<string, string>;
  /** The client's own address (127.0.0.x on Linux loopback): a different "client" for throttles. */
  from?: string;
  /** The Host header; the daemon's own by default. */
  host?: string;
}

/** One request to the daemon over node:http. */
export function call(t: Pick<TestDaemon, 'port' | 'url'>, path: string, options: CallOptions = {}): Promise<Resp> {
  const method = options.method ?? (options.body !== undefined ? 'POST' : 'GET');
  const headers: Record<string, string> = { Host: options.host ?? `127.0.0.1:${t.port}`, ...options.headers };
  if (options.key) headers['API-Key'] = options.key;
  if (options.cookie) headers.Cookie = `${COOKIE}=${options.cookie}`;
  const origin = options.origin === undefined ? (options.cookie && method === 'POST' ? t.url : null) : options.origin;
  if (origin !== null) headers.Origin = origin;
  let payload: string | Buffer | undefined;
  if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) payload = options.body;
  else if (options.body) {
    if (options.form) {
      payload = new URLSearchParams(options.body).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    } else {
      payload = JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
  }
  if (payload !== undefined) headers['Content-Length'] = String(Buffer.byteLength(payload));
  else if (method === 'POST') headers['Content-Length'] = '0';
  const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: t.port,
        method,
        path: `${path}${query}`,
        headers,
        setHost: false,
        localAddress: options.from,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface SetCookie {
  name: string;
  value: string;
  /** Attributes by lower-case name; a flag's value is ''. */
  attrs: Map<string, string>;
  raw: string;
}

/** Every Set-Cookie line of a response, parsed. */
export function setCookies(res: Resp): SetCookie[] {
  const lines = res.headers['set-cookie'] ?? [];
  return lines.map((raw) => {
    const [pair, ...attrParts] = raw.split(';');
    const eq = pair.indexOf('=');
    const attrs = new Map<string, string>();
    for (const part of attrParts) {
      const i = part.indexOf('=');
      const name = (i < 0 ? part : part.slice(0, i)).trim().toLowerCase();
      attrs.set(name, i < 0 ? '' : part.slice(i + 1).trim());
    }
    return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attrs, raw };
  });
}

/** The nimbus_session Set-Cookie of a response, or null. */
export function sessionCookie(res: Resp): SetCookie | null {
  return setCookies(res).find((c) => c.name === COOKIE) ?? null;
}

export interface Login {
  res: Resp;
  /** The session cookie's value, or null when none was set. */
  cookie: string | null;
}

/** POST /api/auth/login with a JSON body. */
export async function login(
  t: Pick<TestDaemon, 'port' | 'url'>,
  username: string,
  password: string,
  options: CallOptions = {},
): Promise<Login> {
  const res = await call(t, '/api/auth/login', { body: { username, password }, ...options });
  const c = sessionCookie(res);
  if (c && c.value !== '') rememberSessionPassword(c.value, password);
  return { res, cookie: c && c.value !== '' ? c.value : null };
}

/** Signs in and returns the cookie value; throws unless it worked. */
export async function signIn(t: Pick<TestDaemon, 'port' | 'url'>, username: string, password: string, options: CallOptions = {}) {
  const { res, cookie } = await login(t, username, password, options);
  if (res.status !== 200 || !cookie) throw new Error(`signing in ${username}: ${res.status} ${res.text}`);
  return cookie;
}

/** The password tests give the users they create: not common, not the name, ≥ 8. */
export const passwordOf = (username: string) => `Pw-${username}-x7!q`;

/** Creates a user with the admin key (password `passwordOf(username)` unless given). */
export async function makeUser(t: TestDaemon, username: string, password = passwordOf(username), email = `${username}@example.com`) {
  const res = await call(t, '/api/user/create', { key: t.key, body: { username, email, password } });
  if (res.status !== 201) throw new Error(`creating ${username}: ${res.status} ${res.text}`);
  return res;
}

/** Creates a user and signs them in: the session cookie. */
export async function userSession(t: TestDaemon, username: string, options: CallOptions = {}): Promise<string> {
  await makeUser(t, username);
  return signIn(t, username, passwordOf(username), options);
}

/** Gives a user a role with the admin key. */
export async function setRole(t: TestDaemon, username: string, name: string) {
  const res = await call(t, '/api/user/role', { key: t.key, body: { username, name } });
  if (res.status !== 201) throw new Error(`role of ${username}: ${res.status} ${res.text}`);
}

/**
 * Makes a key with `cred` (a session for a personal key, sent with the password it signed in
 * with; the admin key for a machine key); returns the key.
 */
export async function makeKey(t: TestDaemon, cred: Cred, label: string, scope: string): Promise<string> {
  const password = sessionPasswordOf(cred.cookie);
  const res = await call(t, '/api/keys/create', { ...cred, body: password === undefined ? { label, scope } : { label, scope, password } });
  if (res.status !== 201 || typeof res.body?.key !== 'string') throw new Error(`key ${label}: ${res.status} ${res.text}`);
  return res.body.key as string;
}

/** Uploads content as `username` with `cred`; the raw body is the content, parameters in the query. */
export function uploadAs(t: TestDaemon, cred: Cred, username: string, file: string, content: string, extra: Record<string, string> = {}) {
  return call(t, '/api/files/upload', { ...cred, method: 'POST', query: { username, file, ...extra }, body: content });
}

/** `{error, code}` of an error answer. */
export function codeOf(res: Resp): string | undefined {
  return typeof res.body === 'object' && res.body !== null ? (res.body.code as string | undefined) : undefined;
}

/** A short description for assertion messages. */
export const show = (res: Resp) => `${res.status} ${res.text.slice(0, 300)}`;
