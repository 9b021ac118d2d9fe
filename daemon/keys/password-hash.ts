/**
 * Password hashes (docs/accounts.md, "Passwords"): argon2id at OWASP's recommended minimum
 * (19 MiB, 2 passes, 1 lane), as a PHC string `$argon2id$v=19$m=19456,t=2,p=1$salt$hash`,
 * through @node-rs/argon2 (its compiled binary ships in the npm package: nothing to build).
 * The scrypt hashes stored before are still verified (password-hash-scrypt.ts), and
 * `needsRehash` tells a sign-in to replace them, or an argon2id hash weaker than today's.
 */
import { hash as argon2Hash, verify as argon2Verify, type Options } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { isScryptHash, scryptHash, scryptVerify } from './password-hash-scrypt.js';

/**
 * OWASP Password Storage Cheat Sheet: argon2id with m = 19 MiB, t = 2, p = 1. `algorithm: 2` is
 * Argon2id (the package's `Algorithm` is a const enum, which isolated modules cannot read).
 */
export const ARGON2ID = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const OPTIONS: Options = { ...ARGON2ID, algorithm: 2 };

/**
 * A stored hash asking for more than this is refused unread: the store is ours, but a damaged
 * or tampered `m=` must not make one sign-in take gigabytes (scrypt's hashes are capped alike).
 */
const MAX = { memoryCost: 64 * 1024, timeCost: 16, parallelism: 4 };

const PHC = /^\$argon2id\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/** The parameters of an argon2id PHC string, or null for anything else. */
function argon2idParams(stored: string): { version: number; memoryCost: number; timeCost: number; parallelism: number } | null {
  const match = PHC.exec(stored);
  if (!match) return null;
  const [version, memoryCost, timeCost, parallelism] = match.slice(1).map(Number);
  return { version, memoryCost, timeCost, parallelism };
}

/**
 * Both hashes run on libuv's thread pool, which file I/O shares (4 threads by default): scrypt
 * through node:crypto, argon2id as a N-API async task (measured: with UV_THREADPOOL_SIZE=1 an
 * argon2id hash waits for a running scrypt). Under a burst of user creations unbounded hashing
 * took every thread and uploads and downloads stalled for seconds; at most two hashes at a time
 * leave the others to the disk.
 */
const AT_ONCE = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  // A waiter is handed the slot of the hash that finishes, so the count never passes the limit.
  if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** A new password hash: argon2id at today's parameters (the package draws a 16-byte salt from the OS). */
export function hashPassword(password: string): Promise<string> {
  return inSlot(() => argon2Hash(password, OPTIONS));
}

/** An old-format scrypt hash, as Nimbus stored them before issue 28: for tests and the bench only. */
export const legacyScryptHash = (password: string): Promise<string> => inSlot(() => scryptHash(password));

let verificationsRun = 0;
/**
 * How many password verifications this process has started. Tests read it to see that a
 * sign-in for an unknown user verifies a password as a wrong password does (the answer must
 * not tell them apart by the work done), without timing anything.
 */
export const passwordVerificationsRun = (): number => verificationsRun;

/**
 * Whether `password` is the one `stored` was made from: an argon2id hash (today's or older
 * parameters) or an old scrypt one. A stored value that is neither, or damaged, or asking for
 * more than MAX, is false, never an error.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  verificationsRun++;
  if (isScryptHash(stored)) return inSlot(() => scryptVerify(password, stored));
  const params = argon2idParams(stored);
  if (!params || params.memoryCost > MAX.memoryCost || params.timeCost > MAX.timeCost || params.parallelism > MAX.parallelism) return false;
  return inSlot(() => argon2Verify(stored, password)).catch(() => false);
}

/**
 * Whether a hash that just verified should be replaced by a new one from the same password: any
 * scrypt hash, and an argon2id hash below today's memory or passes (or of an older version).
 */
export function needsRehash(stored: string): boolean {
  if (isScryptHash(stored)) return true;
  const params = argon2idParams(stored);
  if (!params) return false;
  return params.version !== 19 || params.memoryCost < ARGON2ID.memoryCost || params.timeCost < ARGON2ID.timeCost;
}

let dummyHash: Promise<string> | null = null;
/**
 * A fixed hash of a random password, made once at today's parameters: a password for an account
 * or link that does not exist is verified against it, so it takes as long as a wrong password
 * for one that does (one argon2id verification) and answers the same.
 */
export const dummyPasswordHash = (): Promise<string> => (dummyHash ??= hashPassword(randomBytes(32).toString('base64url')));
