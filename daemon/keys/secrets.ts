import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** A fresh secret: 32 random bytes, URL-safe base64 (256 bits). */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** sha256 hex: enough for high-entropy secrets (keys, tokens), which cannot be brute-forced. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/**
 * Hashes of recently presented secrets (API keys, session cookies): a client sends the same
 * one on every request, and hashing it each time was ~8 % of a GET. Bounded, and emptied
 * when full, so a flood of wrong secrets costs no more memory than this.
 */
const recentHashes = new Map<string, string>();
const RECENT_HASHES_MAX = 256;

/** `hashSecret` of a secret a request presents, from the cache when it was presented recently. */
export function hashPresented(presented: string): string {
  let hash = recentHashes.get(presented);
  if (hash === undefined) {
    if (recentHashes.size >= RECENT_HASHES_MAX) recentHashes.clear();
    hash = hashSecret(presented);
    recentHashes.set(presented, hash);
  }
  return hash;
}

/**
 * Constant-time comparison of two hex digests: every character is compared, with no early
 * exit. Compared as text, not decoded: two Buffer.from(hex) per request were ~4 µs of a GET
 * (issue 15's profile).
 */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

const SCRYPT = { N: 16384, r: 8, p: 1 };

/**
 * scrypt runs on libuv's thread pool, which file I/O shares (4 threads by default). Under a
 * burst of user creations unbounded hashing took every thread and uploads and downloads
 * stalled for seconds; at most two hashes at a time leave the others to the disk.
 */
const SCRYPT_AT_ONCE = 2;
let scryptRunning = 0;
const scryptQueue: (() => void)[] = [];

async function scryptAsync(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // A waiter is handed the slot of the hash that finishes, so the count never passes the limit.
  if (scryptRunning >= SCRYPT_AT_ONCE) await new Promise<void>((resolve) => scryptQueue.push(resolve));
  else scryptRunning++;
  try {
    return await new Promise((resolve, reject) =>
      scrypt(password, salt, 32, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
    );
  } finally {
    const next = scryptQueue.shift();
    if (next) next();
    else scryptRunning--;
  }
}

/** A password hash: scrypt$N$r$p$salt$hash (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

let verificationsRun = 0;
/**
 * How many password verifications this process has started. Tests read it to see that a
 * sign-in for an unknown user verifies a password as a wrong password does (the answer must
 * not tell them apart by the work done), without timing anything.
 */
export const passwordVerificationsRun = (): number => verificationsRun;

/**
 * Whether `password` is the one `stored` (from `hashPassword`) was made from. A stored value
 * that is not such a hash, or whose parameters scrypt refuses (tampered, damaged), is false,
 * never an error.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  verificationsRun++;
  const match = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+=*)\$([A-Za-z0-9+/]+=*)$/.exec(stored);
  if (!match) return false;
  const [, N, r, p, salt, hash] = match;
  const expected = Buffer.from(hash, 'base64');
  const options = { N: Number(N), r: Number(r), p: Number(p) };
  const key = await scryptAsync(password, Buffer.from(salt, 'base64'), options).catch(() => null);
  return key !== null && key.length === expected.length && timingSafeEqual(key, expected);
}
