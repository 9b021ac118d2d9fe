/** Password hashes (daemon/keys/secrets.ts): scrypt, checked in constant time; sign-in will verify with them. */
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../daemon/keys/secrets.js';

describe('hashPassword and verifyPassword', () => {
  it('accepts the password that was hashed', async () => {
    const stored = await hashPassword('correct-horse');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
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
    const [scheme, N, r, p, salt, hash] = stored.split('$');
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[0] ^= 1;
      return bytes.toString('base64');
    };
    const tampered = [
      [scheme, N, r, p, salt, flip(hash)].join('$'),
      [scheme, N, r, p, flip(salt), hash].join('$'),
      [scheme, N, r, p, salt, hash.slice(0, 8)].join('$'),
      [scheme, N, r, p, salt].join('$'),
      ['bcrypt', N, r, p, salt, hash].join('$'),
      [scheme, '16385', r, p, salt, hash].join('$'), // scrypt refuses an N that is not a power of two
      [scheme, 'abc', r, p, salt, hash].join('$'),
      [scheme, '1073741824', r, p, salt, hash].join('$'), // past the memory limit
      '',
    ];
    for (const bad of tampered) expect(await verifyPassword('correct-horse', bad)).toBe(false);
  });
});
