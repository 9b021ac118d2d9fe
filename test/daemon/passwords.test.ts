/** Password hashes (daemon/keys/password-hash.ts): argon2id since issue 28; the old scrypt ones still verify. */
import { describe, expect, it } from 'vitest';
import { legacyScryptHash, needsRehash } from '../../daemon/keys/password-hash.js';
import { hashPassword, verifyPassword } from '../../daemon/keys/secrets.js';

describe('hashPassword and verifyPassword', () => {
  it('accepts the password that was hashed', async () => {
    const stored = await hashPassword('correct-horse');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(stored).not.toContain('correct-horse');
    expect(await verifyPassword('correct-horse', stored)).toBe(true);
  });

  it('refuses a wrong password, including one that differs only in case or by a trailing space', async () => {
    const stored = await hashPassword('correct-horse');
    for (const wrong of ['battery-staple', 'Correct-horse', 'correct-horse ', '']) expect(await verifyPassword(wrong, stored)).toBe(false);
  });

  it('salts every hash: one password hashed twice gives two hashes that both verify', async () => {
    const a = await hashPassword('correct-horse');
    const b = await hashPassword('correct-horse');
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct-horse', a)).toBe(true);
    expect(await verifyPassword('correct-horse', b)).toBe(true);
  });

  it('refuses a tampered hash (changed hash or salt, cut, foreign scheme, damaged parameters) without throwing', async () => {
    const stored = await hashPassword('correct-horse');
    const [, scheme, version, params, salt, hash] = stored.split('$');
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[0] ^= 1;
      return bytes.toString('base64').replace(/=+$/, '');
    };
    const phc = (...parts: string[]) => ['', ...parts].join('$');
    const tampered = [
      phc(scheme, version, params, salt, flip(hash)),
      phc(scheme, version, params, flip(salt), hash),
      phc(scheme, version, params, salt, hash.slice(0, 8)),
      phc(scheme, version, params, salt),
      phc('argon2i', version, params, salt, hash),
      phc(scheme, version, 'm=abc,t=2,p=1', salt, hash),
      phc(scheme, version, 'm=19456,t=0,p=1', salt, hash),
      phc(scheme, version, 'm=4194304,t=2,p=1', salt, hash), // past the memory limit
      '',
    ];
    for (const bad of tampered) expect(await verifyPassword('correct-horse', bad)).toBe(false);
  });

  it('still verifies an old scrypt hash, refuses a damaged one, and asks for it to be replaced', async () => {
    const old = await legacyScryptHash('correct-horse');
    expect(old).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword('correct-horse', old)).toBe(true);
    expect(await verifyPassword('Correct-horse', old)).toBe(false);
    const [scheme, N, r, p, salt, hash] = old.split('$');
    for (const bad of [
      [scheme, '16385', r, p, salt, hash].join('$'), // scrypt refuses an N that is not a power of two
      [scheme, '1073741824', r, p, salt, hash].join('$'), // past the memory limit
      [scheme, N, r, p, salt].join('$'),
    ])
      expect(await verifyPassword('correct-horse', bad)).toBe(false);
    expect(needsRehash(old)).toBe(true);
    expect(needsRehash(await hashPassword('correct-horse'))).toBe(false);
    expect(needsRehash('$argon2id$v=19$m=4096,t=3,p=1$c2FsdHNhbHRzYWx0$aGFzaA')).toBe(true);
  });
});
