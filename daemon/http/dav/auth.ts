/**
 * Who a WebDAV request comes from (docs/webdav.md, "Signing in"): HTTP Basic with the user's
 * password or one of their personal keys as an app password, any username with the admin key
 * or a machine key, or the `API-Key` header (tools). Never the session cookie: a WebDAV client
 * is no browser, and a page must not drive /dav/ with the person's session, so a request a page
 * makes cross-site is refused before anything else. A wrong password counts in the sign-in
 * throttle (LoginThrottle), as /api/auth/login's do; keys are taken as the API takes them: a
 * right one is never refused, a wrong `API-Key` header counts in the API's FailureThrottle.
 */
import type { Context } from 'koa';
import type { NimbusContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { checkUserPassword } from '../../keys/password-hash-check.js';
import { passwordAttempt } from '../../services/auth.js';
import { hashPresented } from '../../keys/secrets.js';
import { identify, isAdminUser, type Caller } from '../../services/keys.js';
import type { LoginThrottle } from '../../services/login-throttle.js';
import { countWrongKey, type FailureThrottle } from '../throttle.js';
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
  readonly #passed = new Map<string, Remembered>();

  constructor(
    private readonly nimbus: NimbusContext,
    private readonly logins: LoginThrottle,
    /** Wrong `API-Key` headers per address, the API's own throttle. */
    private readonly keys: FailureThrottle,
  ) {}

  /** The caller of a request; 401 (with the realm) without credentials or with wrong ones, 429 while throttled, 403 cross-site. */
  async caller(ctx: Context, ownOrigins: Set<string>): Promise<Caller> {
    const origin = ctx.get('Origin');
    if ((origin && !ownOrigins.has(origin.toLowerCase())) || ctx.get('Sec-Fetch-Site') === 'cross-site')
      throw new ApiError('cross_site_request', 'WebDAV does not answer pages of other sites');
    const address = ctx.socket.remoteAddress ?? 'unknown';
    const header = ctx.get('API-Key');
    if (header) return identify(this.nimbus, header) ?? this.#wrongKey(address);
    const basic = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(ctx.get('Authorization'));
    if (!basic) throw unauthorized('Sign in with your username and password, or a personal key as an app password');
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw unauthorized('Malformed Basic credentials');
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    // A key as the password (256-bit, as the API takes it): the right one is never refused.
    const keyed = identify(this.nimbus, password);
    if (keyed && (keyed.username === null || keyed.username === username)) return keyed;
    const known = keyed ? null : this.#remembered(username, password);
    return this.#attempt(username, password, address, known !== undefined ? async () => known : () => this.#check(username, password));
  }

  /**
   * A wrong `API-Key` header, as the API answers one: counted against the address alone (keys
   * are 256-bit: this is about floods, not guessing), 429 once it sends too many. It was counted
   * under the sign-in throttle's username "" shared by every key, so five wrong keys from
   * anywhere refused every right key from everywhere for 15 minutes.
   */
  #wrongKey(address: string): never {
    countWrongKey(this.keys, address);
    throw unauthorized('Wrong API key');
  }

  /**
   * One attempt under the sign-in throttle (LoginThrottle.attempt): refused while blocked,
   * counted as a failure or a success; the same password at once is one attempt, hashed once
   * (a client mounting the drive sends a dozen requests together).
   */
  async #attempt(username: string, password: string, address: string, check: () => Promise<Caller | null>): Promise<Caller> {
    const caller = await passwordAttempt(this.logins, username, address, password, check);
    if (caller === null) throw unauthorized('Wrong username or password');
    // Each request its own Caller, as every other way in gives it (an attempt's answer may be shared).
    return { ...caller };
  }

  /** The caller of a password that passed lately; undefined when it must be checked. */
  #remembered(username: string, password: string): Caller | undefined {
    const user = this.nimbus.store.users.get(username);
    const known = this.#passed.get(this.#rememberedKey(username, password));
    if (user && known && known.until > Date.now() && known.passwordHash === user.passwordHash) return passwordCaller(user);
    return undefined;
  }

  /** The user's password, hashed; remembered when it passes. */
  async #check(username: string, password: string): Promise<Caller | null> {
    // Another daemon may have made the account or changed the password a moment ago.
    if (this.nimbus.store.database) await this.nimbus.store.catchUp();
    // The same argon2id work whether or not the user exists; an old scrypt hash that passes is
    // replaced by an argon2id one, and remembered as the hash now stored.
    const now = await checkUserPassword(this.nimbus, username, password);
    if (!now) return null;
    if (this.#passed.size >= REMEMBER_MAX) this.#forgetExpired();
    if (this.#passed.size < REMEMBER_MAX)
      this.#passed.set(this.#rememberedKey(username, password), { passwordHash: now.passwordHash, until: Date.now() + REMEMBER_MS });
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
    for (const [key, entry] of this.#passed) if (entry.until <= now) this.#passed.delete(key);
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
