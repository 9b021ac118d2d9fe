/**
 * What a password costs (issue 28, item 7): argon2id at the parameters the daemon stores
 * (OWASP's m = 19 MiB, t = 2, p = 1) beside the scrypt Nimbus stored before (N = 2^14, r = 8,
 * p = 1), side by side in alternating rounds: one hash and one verification of each, here in
 * the bench's process, through the same functions the daemon calls (daemon/keys/password-hash.ts).
 * Then sign-ins per second through the API, on a daemon of the scenario's own (the bench's
 * daemon's users have no real hashes): users whose stored hash is argon2id, beside users whose
 * stored hash is still scrypt, each signing in for the first time since the upgrade (the
 * scrypt verification, today's argon2id hash of the same password and its store write: what
 * every old account pays once). Reference rows: there is no target to meet.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ARGON2ID, hashPassword, legacyScryptHash, verifyPassword } from '../../daemon/keys/password-hash.js';
import { SCRYPT } from '../../daemon/keys/password-hash-scrypt.js';
import type { Bench } from '../lib/context.js';
import { api, startNimbus, type NimbusProcess } from '../lib/nimbus.js';
import { fmt, type Row } from '../lib/report.js';
import { jobsPerSecond, median, percentile } from '../lib/stats.js';

const PASSWORD = 'bench-Pw-7x!q-correct';
/** Timed operations of each kind per round. */
const SAMPLES = 10;
/** Sign-ins per round of each kind; each old-hash user signs in once (their hash is argon2id after). */
const SIGN_INS = 60;
/** Sign-ins in flight at once: more than the daemon's two hashes at a time, so it is never idle. */
const CONNECTIONS = 4;

const ARGON_LABEL = `argon2id m=${ARGON2ID.memoryCost} KiB, t=${ARGON2ID.timeCost}, p=${ARGON2ID.parallelism}`;
const SCRYPT_LABEL = `scrypt N=${SCRYPT.N}, r=${SCRYPT.r}, p=${SCRYPT.p}`;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
}

/** Medians of one hash and one verification of each kind, alternating kinds every round. */
async function hashCosts(rounds: number) {
  const samples = { argonHash: [] as number[], scryptHash: [] as number[], argonVerify: [] as number[], scryptVerify: [] as number[] };
  const argonStored = await hashPassword(PASSWORD);
  const scryptStored = await legacyScryptHash(PASSWORD);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < SAMPLES; i++) {
      samples.argonHash.push(await timed(() => hashPassword(PASSWORD)));
      samples.scryptHash.push(await timed(() => legacyScryptHash(PASSWORD)));
      samples.argonVerify.push(await timed(() => verifyPassword(PASSWORD, argonStored)));
      samples.scryptVerify.push(await timed(() => verifyPassword(PASSWORD, scryptStored)));
    }
  }
  return samples;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

/** POST /api/auth/login as the web UI sends it; rejects unless it answers 200. */
function signIn(url: string, username: string): Promise<void> {
  const body = JSON.stringify({ username, password: PASSWORD });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/api/auth/login`,
      { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`sign-in of ${username} answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A daemon whose store holds `fresh` users with argon2id hashes and `old` users with scrypt ones:
 * all made through the API, then the old ones' hashes replaced in db.json while it is stopped.
 */
async function daemonWithUsers(b: Bench, fresh: number, old: number): Promise<{ nimbus: NimbusProcess; fresh: string[]; old: string[] }> {
  const dataDir = path.join(b.root, 'passwords');
  mkdirSync(dataDir, { recursive: true });
  const names = { fresh: Array.from({ length: fresh }, (_, i) => `argon${i}`), old: Array.from({ length: old }, (_, i) => `scrypt${i}`) };
  let nimbus = await startNimbus(dataDir, b.nimbus.key);
  try {
    for (const username of [...names.fresh, ...names.old])
      await api(nimbus, 'POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD });
  } finally {
    await nimbus.child.stop();
  }
  // One scrypt hash for every old user: the same password, so the same work to verify.
  const scryptStored = await legacyScryptHash(PASSWORD);
  const file = path.join(dataDir, 'db.json');
  const db = JSON.parse(readFileSync(file, 'utf8')) as { users: { username: string; passwordHash: string }[] };
  const oldSet = new Set(names.old);
  for (const user of db.users) if (oldSet.has(user.username)) user.passwordHash = scryptStored;
  writeFileSync(file, JSON.stringify(db, null, 2));
  nimbus = await startNimbus(dataDir, b.nimbus.key);
  return { nimbus, ...names };
}

export async function passwordRows(b: Bench): Promise<Row[]> {
  const costs = await hashCosts(b.rounds);
  const m = Object.fromEntries(Object.entries(costs).map(([k, v]) => [k, median(v)])) as Record<keyof typeof costs, number>;
  b.log(
    `  hash ${fmt.ms(m.argonHash)} vs ${fmt.ms(m.scryptHash)}; verify ${fmt.ms(m.argonVerify)} vs ${fmt.ms(m.scryptVerify)} (argon2id vs scrypt)`,
  );
  const { nimbus, fresh, old } = await daemonWithUsers(b, 20, SIGN_INS * b.rounds);
  const argonRates: number[] = [];
  const upgradeRates: number[] = [];
  try {
    for (let r = 0; r < b.rounds; r++) {
      argonRates.push(await jobsPerSecond(SIGN_INS, CONNECTIONS, (i) => signIn(nimbus.url, fresh[i % fresh.length])));
      const batch = old.slice(r * SIGN_INS, (r + 1) * SIGN_INS);
      upgradeRates.push(await jobsPerSecond(SIGN_INS, CONNECTIONS, (i) => signIn(nimbus.url, batch[i])));
    }
    const stored = JSON.parse(readFileSync(path.join(b.root, 'passwords', 'db.json'), 'utf8')) as { users: { passwordHash: string }[] };
    const left = stored.users.filter((u) => u.passwordHash.startsWith('scrypt$')).length;
    if (left > 0) throw new Error(`${left} users still have a scrypt hash after signing in`);
  } finally {
    await nimbus.child.stop();
    agent.destroy();
  }
  const perSecond = (v: number) => `${v.toFixed(0)} sign-ins/s`;
  const [argonRate, upgradeRate] = [median(argonRates), median(upgradeRates)];
  b.log(`  sign-ins ${perSecond(argonRate)} (argon2id) vs ${perSecond(upgradeRate)} (scrypt, first sign-in, rehashed)`);
  const row = (scenario: string, a: number[], s: number[], detail: string): Row => ({
    scenario,
    nimbus: `${fmt.ms(median(a))} (argon2id)`,
    baseline: `${fmt.ms(median(s))} (scrypt)`,
    ratio: fmt.ratio(median(a) / median(s)),
    target: 'for reference',
    verdict: 'info',
    detail,
  });
  const each = `${SAMPLES} of each per round, one at a time, alternating, ${b.rounds} rounds, in the bench's process`;
  return [
    row(
      'Password hash: argon2id beside the old scrypt',
      costs.argonHash,
      costs.scryptHash,
      `${ARGON_LABEL} (OWASP's minimum) vs ${SCRYPT_LABEL} (stored before issue 28); ${each}; p95 ${fmt.ms(percentile(costs.argonHash, 95))} vs ${fmt.ms(percentile(costs.scryptHash, 95))}.`,
    ),
    row(
      'Password verification: argon2id beside the old scrypt',
      costs.argonVerify,
      costs.scryptVerify,
      `The same parameters; ${each}; p95 ${fmt.ms(percentile(costs.argonVerify, 95))} vs ${fmt.ms(percentile(costs.scryptVerify, 95))}. An unknown username costs one argon2id verification (a dummy hash).`,
    ),
    {
      scenario: 'Sign-ins per second (POST /api/auth/login)',
      nimbus: `${perSecond(argonRate)} (argon2id)`,
      baseline: `${perSecond(upgradeRate)} (old scrypt hash, rehashed)`,
      ratio: fmt.ratio(argonRate / upgradeRate),
      target: 'for reference',
      verdict: 'info',
      detail: `${SIGN_INS} sign-ins of each kind per round on ${CONNECTIONS} keep-alive connections, ${b.rounds} alternating rounds, each a new session written to db.json, on a daemon of the scenario's own; per round ${fmt.list(argonRates, perSecond)} vs ${fmt.list(upgradeRates, perSecond)}. Baseline: users whose stored hash is the old scrypt one, each signing in once (scrypt verification + argon2id hash + the record's write); afterwards every one of them is argon2id.`,
    },
  ];
}
