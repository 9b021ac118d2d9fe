/** The guessing limits and the password rules, without a daemon (clocks passed in). */
import { describe, expect, it } from 'vitest';
import { LOGIN_WINDOW_MS, LoginThrottle } from '../../daemon/services/login-throttle.js';
import { weakPasswordReason } from '../../daemon/accounts/password-policy.js';

const MIN = 60_000;

describe('LoginThrottle', () => {
  it('blocks a username at its 5th failure until the oldest leaves the 15-minute window', () => {
    const logins = new LoginThrottle();
    const t0 = 1_000_000;
    for (let i = 0; i < 4; i++) logins.fail('Ana', `10.0.0.${i}`, t0 + i * MIN);
    expect(logins.retryAfter('ana', '10.0.0.9', t0 + 4 * MIN)).toBe(0);
    logins.fail('ana', '10.0.0.4', t0 + 4 * MIN);
    expect(logins.retryAfter('ANA', '10.0.0.9', t0 + 4 * MIN)).toBe(LOGIN_WINDOW_MS / 1000 - 4 * 60);
    expect(logins.retryAfter('bob', '10.0.0.9', t0 + 4 * MIN)).toBe(0);
    // The sliding window: once the oldest failure is 15 minutes old, one more try is allowed.
    expect(logins.retryAfter('ana', '10.0.0.9', t0 + LOGIN_WINDOW_MS - 1)).toBe(1);
    expect(logins.retryAfter('ana', '10.0.0.9', t0 + LOGIN_WINDOW_MS)).toBe(0);
  });

  it('blocks an address at its 20th failure, for every username', () => {
    const logins = new LoginThrottle();
    for (let i = 0; i < 20; i++) logins.fail(`user${i}`, '10.1.1.1', 5000 + i);
    expect(logins.retryAfter('someone-else', '10.1.1.1', 6000)).toBeGreaterThan(14 * 60);
    expect(logins.retryAfter('someone-else', '10.1.1.2', 6000)).toBe(0);
  });

  it('clears a username on success, not the address', () => {
    const logins = new LoginThrottle();
    for (let i = 0; i < 5; i++) logins.fail('ana', '10.2.2.2', 1000);
    logins.succeed('ana', '10.2.2.2');
    expect(logins.retryAfter('ana', '10.2.2.3', 1001)).toBe(0);
  });
});

describe('LoginThrottle, attempts at once', () => {
  it('counts attempts still being verified, so a burst cannot pass the limit', () => {
    const logins = new LoginThrottle();
    const started = Array.from({ length: 8 }, () => logins.begin('ana', '10.3.3.3', 1000));
    expect(started.filter((wait) => wait === 0)).toHaveLength(5);
    expect(started.slice(5).every((wait) => wait > 0)).toBe(true);
    for (let i = 0; i < 5; i++) logins.fail('ana', '10.3.3.3', 1001);
    expect(logins.begin('ana', '10.3.3.3', 1002)).toBeGreaterThan(14 * 60);
  });

  it('frees a pending attempt that succeeds or is released', () => {
    const logins = new LoginThrottle();
    for (let i = 0; i < 5; i++) expect(logins.begin('bob', '10.4.4.4', 1000)).toBe(0);
    expect(logins.begin('bob', '10.4.4.4', 1000)).toBe(1);
    logins.succeed('bob', '10.4.4.4');
    for (let i = 0; i < 4; i++) logins.release('bob', '10.4.4.4');
    expect(logins.begin('bob', '10.4.4.4', 1000)).toBe(0);
  });
});

describe('LoginThrottle.attempt', () => {
  /** A check that counts its runs and answers `value` once `open` is called. */
  function heldCheck<T>(value: T | null) {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const check = { runs: 0, open: () => open(), run: async () => (check.runs++, await gate, value) };
    return check;
  }

  it('shares one check among the same guess at once: checked once, counted once, all answered alike', async () => {
    const logins = new LoginThrottle();
    const wrong = heldCheck<string>(null);
    const same = Array.from({ length: 12 }, () => logins.attempt('ana', '10.5.5.5', 'guess-1', wrong.run));
    // The name as given, not folded: a check answers for exactly what it checked.
    const otherName = logins.attempt('Ana', '10.5.5.5', 'guess-1', wrong.run);
    const otherGuess = logins.attempt('ana', '10.5.5.5', 'guess-2', wrong.run);
    wrong.open();
    expect(await Promise.all(same)).toEqual(same.map(() => ({ value: null })));
    expect([await otherName, await otherGuess]).toEqual([{ value: null }, { value: null }]);
    expect(wrong.runs).toBe(3);
    // Three failures for the username (folded): two more and it is blocked.
    const right = heldCheck('the user');
    const passed = logins.attempt('ana', '10.5.5.6', 'right', right.run);
    right.open();
    expect(await passed).toEqual({ value: 'the user' });
    for (let i = 0; i < 5; i++) logins.fail('ana', '10.5.5.5');
    expect(await logins.attempt('ana', '10.5.5.7', 'right', right.run)).toEqual({ refusedFor: expect.any(Number) });
    expect(right.runs).toBe(1);
  });

  it('releases an attempt whose check throws, and every request sharing it gets the error', async () => {
    const logins = new LoginThrottle();
    const failing = async () => {
      await Promise.resolve();
      throw new Error('database gone');
    };
    const both = [logins.attempt('cy', '10.6.6.6', 'g', failing), logins.attempt('cy', '10.6.6.6', 'g', failing)];
    for (const attempt of both) await expect(attempt).rejects.toThrow('database gone');
    for (let i = 0; i < 5; i++) expect(logins.begin('cy', '10.6.6.6')).toBe(0);
  });
});

describe('weakPasswordReason', () => {
  it.each([
    ['short1', 'ana', /at least 8/],
    ['Ana-the-user', 'ana-the-user', /username/],
    ['password', 'ana', /common/],
    ['Qwerty123', 'ana', /common/],
  ])('refuses %s for %s', (password, username, reason) => {
    expect(weakPasswordReason(password, username)).toMatch(reason);
  });

  it('accepts a long, uncommon password', () => {
    expect(weakPasswordReason('correct horse battery staple', 'ana')).toBeNull();
  });
});
