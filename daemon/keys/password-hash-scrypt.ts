/**
 * The scrypt hashes Nimbus stored before argon2id (issue 28): `scrypt$N$r$p$salt$hash`, salt and
 * hash in base64. Kept to verify them until each user's next sign-in replaces theirs
 * (password-hash-check.ts), and to make them in tests and the bench. Nothing new is stored in it.
 * Called through password-hash.ts, which holds the limit on hashes at once.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** What hashPassword used until issue 28: N = 2^14 (16 MiB), below OWASP's N = 2^17 today. */
export const SCRYPT = { N: 16384, r: 8, p: 1 };

/** A stored value that can only be one of these hashes (the cheap test, before parsing). */
export const isScryptHash = (stored: string): boolean => stored.startsWith('scrypt$');

function scryptKey(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // 64 MiB: N = 2^14, r = 8 needs 16; a damaged or tampered N fails here instead of taking the memory.
  return new Promise((resolve, reject) =>
    scrypt(password, salt, 32, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** The old format, exactly as the old hashPassword made it. */
export async function scryptHash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptKey(password, salt, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Whether `password` is the one an old hash was made from. A value that is not such a hash, or
 * whose parameters scrypt refuses (tampered, damaged), is false, never an error.
 */
export async function scryptVerify(password: string, stored: string): Promise<boolean> {
  const match = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+=*)\$([A-Za-z0-9+/]+=*)$/.exec(stored);
  if (!match) return false;
  const [, N, r, p, salt, hash] = match;
  const expected = Buffer.from(hash, 'base64');
  const options = { N: Number(N), r: Number(r), p: Number(p) };
  const key = await scryptKey(password, Buffer.from(salt, 'base64'), options).catch(() => null);
  return key !== null && key.length === expected.length && timingSafeEqual(key, expected);
}
