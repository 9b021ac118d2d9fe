/**
 * The caps on verification mails and registrations (issue 22, item 8; README, "Accounts"):
 * at most 5 verification mails per address per hour, whichever route sends them (user.verify,
 * an e-mail change, a registration), at most 10 per user who asks for them, and at most 5
 * registrations per client address per 15 minutes. Past a cap: 429 too_many_requests with
 * Retry-After, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutbox } from '../helpers/mail.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { call, codeOf, makeUser, passwordOf, show, signIn } from '../helpers/accounts.js';

const mailsTo = async (t: TestDaemon, address: string) =>
  (await readOutbox(t.dataDir)).filter((m) => new RegExp(`^To: ${address.replace(/[.+]/g, '\\$&')}$`, 'm').test(m));

function expectTooMany(res: Awaited<ReturnType<typeof call>>) {
  expect(res.status, show(res)).toBe(429);
  expect(codeOf(res)).toBe('too_many_requests');
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

describe('verification mails', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } });
  });
  afterAll(() => t.close());

  it('sends at most 5 to one address within the hour, across accounts: the 6th is 429 and the outbox holds 5', async () => {
    await makeUser(t, 'capa', passwordOf('capa'), 'shared@example.com');
    await makeUser(t, 'capb', passwordOf('capb'), 'shared@example.com');
    for (const username of ['capa', 'capa', 'capa', 'capb', 'capb']) {
      const res = await call(t, '/api/user/verify', { key: t.key, body: { username } });
      expect(res.status, show(res)).toBe(200);
    }
    expectTooMany(await call(t, '/api/user/verify', { key: t.key, body: { username: 'capb' } }));
    expect(await mailsTo(t, 'shared@example.com')).toHaveLength(5);
  });

  it('counts an e-mail change and a registration towards the same cap; over it both are 429 and change nothing', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await call(t, '/api/auth/register', {
        body: { username: `reg${i}`, email: 'target@example.com', password: `Reg-pw-${i}-88123` },
        from: `127.0.9.${i + 1}`,
      });
      expect(res.status, show(res)).toBe(201);
    }
    const sixth = await call(t, '/api/auth/register', {
      body: { username: 'reg5', email: 'target@example.com', password: 'Reg-pw-5-88123' },
      from: '127.0.9.6',
    });
    expectTooMany(sixth);
    expect((await call(t, '/api/user', { key: t.key, query: { username: 'reg5' } })).status).toBe(404);
    await makeUser(t, 'mover');
    const cookie = await signIn(t, 'mover', passwordOf('mover'));
    const edit = await call(t, '/api/user/edit', {
      cookie,
      body: { username: 'mover', newusername: 'mover', newemail: 'target@example.com', password: passwordOf('mover') },
    });
    expectTooMany(edit);
    expect((await call(t, '/api/user', { key: t.key, query: { username: 'mover' } })).body.email).toBe('mover@example.com');
    expect(await mailsTo(t, 'target@example.com')).toHaveLength(5);
  });

  it('sends at most 10 for one user who keeps changing their address; the 11th change is 429 and keeps the address', async () => {
    await makeUser(t, 'hopper');
    const cookie = await signIn(t, 'hopper', passwordOf('hopper'));
    for (let i = 0; i < 10; i++) {
      const res = await call(t, '/api/user/edit', {
        cookie,
        body: { username: 'hopper', newusername: 'hopper', newemail: `hop${i}@example.com`, password: passwordOf('hopper') },
      });
      expect(res.status, show(res)).toBe(201);
    }
    const over = await call(t, '/api/user/edit', {
      cookie,
      body: { username: 'hopper', newusername: 'hopper', newemail: 'hop10@example.com', password: passwordOf('hopper') },
    });
    expectTooMany(over);
    expect((await call(t, '/api/user', { key: t.key, query: { username: 'hopper' } })).body.email).toBe('hop9@example.com');
    expect(await mailsTo(t, 'hop10@example.com')).toHaveLength(0);
  });
});

describe('registrations', () => {
  it('takes at most 5 from one client address within 15 minutes: the 6th is 429, another address still registers', async () => {
    const t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await call(t, '/api/auth/register', {
          body: { username: `flood${i}`, email: `flood${i}@example.com`, password: `Flood-pw-${i}-66123` },
          from: '127.0.7.1',
        });
        expect(res.status, show(res)).toBe(201);
      }
      const sixth = await call(t, '/api/auth/register', {
        body: { username: 'flood5', email: 'flood5@example.com', password: 'Flood-pw-5-66123' },
        from: '127.0.7.1',
      });
      expectTooMany(sixth);
      expect((await call(t, '/api/user', { key: t.key, query: { username: 'flood5' } })).status).toBe(404);
      const other = await call(t, '/api/auth/register', {
        body: { username: 'flood5', email: 'flood5@example.com', password: 'Flood-pw-5-66123' },
        from: '127.0.7.2',
      });
      expect(other.status, show(other)).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('holds to 5 when the registrations arrive together', async () => {
    const t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } });
    try {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call(t, '/api/auth/register', {
            body: { username: `rush${i}`, email: `rush${i}@example.com`, password: `Rush-pw-${i}-66123` },
            from: '127.0.7.3',
          }),
        ),
      );
      expect(answers.filter((r) => r.status === 201)).toHaveLength(5);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(7);
    } finally {
      await t.close();
    }
  });

  it('gives a refused registration (a taken name) its place back', async () => {
    const t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } });
    try {
      await makeUser(t, 'taken');
      for (let i = 0; i < 6; i++) {
        const res = await call(t, '/api/auth/register', {
          body: { username: 'taken', email: 'x@example.com', password: 'Taken-pw-66123' },
          from: '127.0.7.4',
        });
        expect(res.status, show(res)).toBe(409);
      }
      const res = await call(t, '/api/auth/register', {
        body: { username: 'fresh', email: 'fresh@example.com', password: 'Fresh-pw-66123' },
        from: '127.0.7.4',
      });
      expect(res.status, show(res)).toBe(201);
    } finally {
      await t.close();
    }
  });
});
