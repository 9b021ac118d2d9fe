/**
 * Whose data a target database holds. A migration writes a note in
 * `nimbus_migration_progress` naming its source (host and data directory) and the salt its
 * ids derive from; a later run from the same source finds the note and carries on (the same
 * ids name the same files, so what was copied is recognised), while a database holding
 * anything else (another installation's data, another source's migration) is refused. The
 * table is the migration's own: daemons never read it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Store } from '../store/store.js';

/** Held for the whole run on its own connection: two migrations into one database would interleave their rows. */
const MIGRATION_LOCK = 0x6e6d6967; // "nmig"

const CREATE = `CREATE TABLE IF NOT EXISTS nimbus_migration_progress (
  source text PRIMARY KEY,
  salt text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
)`;

/** A migration that must not start (the message says why and what to do); nothing was written. */
export class MigrationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationRefused';
  }
}

export interface Claim {
  /** Derives the ids of this source's files and folders (stable across runs). */
  idOf(kind: 'file' | 'folder', ...parts: (string | null)[]): string;
  /** True when an earlier run of this migration had started. */
  resumed: boolean;
  finish(): Promise<void>;
  release(): Promise<void>;
}

/** Takes the target for `source`, or throws MigrationRefused. `store` is the target, loaded. */
export async function claimTarget(url: string, store: Store, source: string): Promise<Claim> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows: locked } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [MIGRATION_LOCK]);
    if (!locked[0]?.ok) throw new MigrationRefused('Another `nimbus migrate` is writing into this database; wait for it to end.');
    await client.query(CREATE);
    const { rows } = await client.query<{ source: string; salt: string }>('SELECT source, salt FROM nimbus_migration_progress');
    const mine = rows.find((r) => r.source === source);
    const others = rows.filter((r) => r.source !== source);
    if (others.length > 0)
      throw new MigrationRefused(
        `The target database holds a migration from another installation (${others[0].source}); use an empty database.`,
      );
    let salt: string;
    if (mine) salt = mine.salt;
    else {
      const holds = whatItHolds(store);
      if (holds.length > 0)
        throw new MigrationRefused(
          `The target database already holds another installation's data (${holds.join(', ')}); use an empty database.`,
        );
      salt = randomBytes(16).toString('hex');
      await client.query('INSERT INTO nimbus_migration_progress (source, salt) VALUES ($1, $2)', [source, salt]);
    }
    return {
      resumed: mine !== undefined,
      idOf: (kind, ...parts) =>
        createHmac('sha256', salt)
          .update(JSON.stringify([kind, ...parts]))
          .digest('hex')
          .slice(0, 32),
      async finish() {
        await client.query('UPDATE nimbus_migration_progress SET finished_at = now() WHERE source = $1', [source]);
      },
      async release() {
        await client.end().catch(() => undefined);
      },
    };
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
}

/** What makes a database someone's: any record but the built-in roles every new database is seeded with. */
function whatItHolds(store: Store): string[] {
  const counts: [string, number][] = [
    ['users', store.users.size],
    ['shares', store.sharesByToken.size],
    ['keys', store.keysByHash.size],
    ['sessions', store.sessions.size],
    ['trash items', store.trash.size],
    ['files', store.files.size],
    ['folders', store.folders.size],
  ];
  return counts.filter(([, n]) => n > 0).map(([name, n]) => `${n} ${name}`);
}
