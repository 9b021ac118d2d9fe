/**
 * Who a WebDAV request comes from (docs/webdav.md, "Signing in"): HTTP Basic with the user's
 * password or one of their personal keys as an app password, any username with the admin key
 * or a machine key, or the `API-Key` header (tools). Never the session cookie: a WebDAV client
 * is no browser, and a page must not drive /dav/ with the person's session, so a request a page
 * makes cross-site is refused before anything else. Every failure counts in the sign-in
 * throttle (LoginThrottle), as /api/auth/login's do.
 */
import type { Context } from 'koa';
import type { NimbusContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { checkUserPassword } from '../../keys/password-hash-check.js';
import { hashPresented } from '../../keys/secrets.js';
import { identify, isAdminUser, type Caller } from '../../services/keys.js';
import type { LoginThrottle } from '../../services/login-throttle.js';
import { passwordCredential } from '../../services/standing.js';
import type { StoredUser } from '../../store/schema.js';

export const DAV_REALM = 'Basic realm="Nimbus", charset="UTF-8"';
/** How long a password that passed is taken without hashing it again (clients send it with every request). */
const REMEMBER_MS = 5 * 60 * 1000;
const REMEMBER_MAX = 10_000;

const unauthorized = (message: string) => new ApiError('unauthorized', message, { 'WWW-Authenticate': DAV_REALM });

/** A password check passed: remembered by username and the password's hash, valid while the user's hash is the one it was checked against. */
interface Remembered {
  passwordHash: string;
  until: number;
}

export class DavAuth {
  readonly #remembered = new Map<string, Remembered>();

  constructor(
    private readonly nimbus: NimbusContext,
    private readonly logins: LoginThrottle,
  ) {}

  /** The caller of a request; 401 (with the realm) without credentials or with wrong ones, 429 while throttled, 403 cross-site. */
  async caller(ctx: Context, ownOrigins: Set<string>): Promise<Caller> {
    const origin = ctx.get('Origin');
    if ((origin && !ownOrigins.has(origin.toLowerCase())) || ctx.get('Sec-Fetch-Site') === 'cross-site')
      throw new ApiError('cross_site_request', 'WebDAV does not answer pages of other sites');
    const address = ctx.socket.remoteAddress ?? 'unknown';
    const header = ctx.get('API-Key');
    if (header) return this.#attempt('', address, async () => identify(this.nimbus, header));
    const basic = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(ctx.get('Authorization'));
    if (!basic) throw unauthorized('Sign in with your username and password, or a personal key as an app password');
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw unauthorized('Malformed Basic credentials');
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    return this.#attempt(username, address, () => this.#check(username, password));
  }

  /** One attempt under the sign-in throttle: refused while blocked, counted as a failure or a success. */
  async #attempt(username: string, address: string, check: () => Promise<Caller | null>): Promise<Caller> {
    const wait = this.logins.begin(username, address);
    if (wait > 0) throw new ApiError('too_many_attempts', 'Too many failed sign-ins; try again later', { 'Retry-After': String(wait) });
    let caller: Caller | null;
    try {
      caller = await check();
    } catch (err) {
      this.logins.release(username, address);
      throw err;
    }
    if (!caller) {
      this.logins.fail(username, address);
      throw unauthorized('Wrong username or password');
    }
    this.logins.succeed(username, address);
    return caller;
  }

  /** The admin key or a machine key (any username), the user's personal key, or the user's password. */
  async #check(username: string, password: string): Promise<Caller | null> {
    const keyed = identify(this.nimbus, password);
    if (keyed) return keyed.username === null || keyed.username === username ? keyed : null;
    const remembered = this.#rememberedKey(username, password);
    const user = this.nimbus.store.users.get(username);
    const known = this.#remembered.get(remembered);
    if (user && known && known.until > Date.now() && known.passwordHash === user.passwordHash) return passwordCaller(user);
    // Another daemon may have made the account or changed the password a moment ago.
    if (this.nimbus.store.database) await this.nimbus.store.catchUp();
    // The same argon2id work whether or not the user exists; an old scrypt hash that passes is
    // replaced by an argon2id one, and remembered as the hash now stored.
    const now = await checkUserPassword(this.nimbus, username, password);
    if (!now) return null;
    if (this.#remembered.size >= REMEMBER_MAX) this.#forgetExpired();
    if (this.#remembered.size < REMEMBER_MAX)
      this.#remembered.set(remembered, { passwordHash: now.passwordHash, until: Date.now() + REMEMBER_MS });
    return passwordCaller(now);
  }

  /**
   * The password's sha256 as `identify` has just computed it (kept for the secrets presented
   * recently, keys/secrets.ts): no hash of its own a request. An HMAC here was ~1.3 µs of a
   * WebDAV request on its own, more under load (bench/NOTES.md, issue 26).
   */
  #rememberedKey(username: string, password: string): string {
    return `${username}\0${hashPresented(password)}`;
  }

  #forgetExpired(): void {
    const now = Date.now();
    for (const [key, entry] of this.#remembered) if (entry.until <= now) this.#remembered.delete(key);
  }
}

/** A user signed in with their password: acts as them, may write; a new password makes its credential stale. */
function passwordCaller(user: StoredUser): Caller {
  return {
    kind: 'session',
    username: user.username,
    admin: isAdminUser(user),
    canWrite: true,
    credential: passwordCredential(user),
    dialect: 'nimbus',
    label: 'password',
    sessionId: null,
  };
}
