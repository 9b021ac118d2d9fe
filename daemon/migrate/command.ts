/**
 * `nimbus migrate`: moves an installation between the embedded backends and the configured
 * ones (docs/scaling.md, "Migrating"). `--data-dir DIR` copies DIR into the database (and
 * bucket) that NIMBUS_DATABASE_URL / --database-url and NIMBUS_S3_* name; `--to-data-dir DIR`
 * copies them back into a new data directory. Prints progress and a summary; the exit code
 * is 0 only when everything was verified.
 */
import path from 'node:path';
import { resolveConfig, type ConfigInput, type DaemonConfig } from '../config.js';
import { LockHeldError } from '../store/lock.js';
import { NewerStoreError } from '../store/upgrades.js';
import { reportOk, summaryLines, type MigrationReport } from './report.js';
import { MigrationRefused } from './target-claim.js';
import { migrateToDatabase } from './to-database.js';
import { migrateToDataDir } from './to-data-dir.js';

export interface MigrateInput extends ConfigInput {
  /** Set: the configured database (and bucket) into this new data directory. */
  toDataDir?: string;
}

export async function runMigrate(
  input: MigrateInput,
  env: NodeJS.ProcessEnv = process.env,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  const fail = (message: string) => {
    err(`nimbus migrate: ${message}`);
    return 1;
  };
  if (input.toDataDir && input.dataDir) return fail('give either --data-dir (from it) or --to-data-dir (into it), not both');
  if (!input.toDataDir && !input.dataDir && !env.NIMBUS_DATA_DIR)
    return fail('name the embedded data directory: --data-dir DIR (into the database), or --to-data-dir DIR (back from it)');
  const dataDir = input.toDataDir ?? input.dataDir;
  let config: DaemonConfig;
  try {
    // An admin key is the daemons' business (the cluster requires one shared key): migrate calls no API, so any stands in.
    config = resolveConfig({ ...input, dataDir, apiKey: env.NIMBUS_API_KEY || 'unused-by-migrate' }, env, '');
  } catch (e) {
    return fail((e as Error).message);
  }
  if (!config.databaseUrl)
    return fail(
      'no target: set NIMBUS_DATABASE_URL (or --database-url), and the NIMBUS_S3_* variables to keep the files in a bucket (docs/scaling.md)',
    );
  let report: MigrationReport;
  try {
    report = input.toDataDir
      ? await migrateToDataDir({
          toDataDir: config.dataDir,
          storageDir: config.storageDir,
          databaseUrl: config.databaseUrl,
          s3: config.s3,
          out,
        })
      : await migrateToDatabase({
          dataDir: config.dataDir,
          storageDir: config.storageDir,
          databaseUrl: config.databaseUrl,
          s3: config.s3,
          out,
        });
  } catch (e) {
    if (e instanceof LockHeldError || e instanceof MigrationRefused || e instanceof NewerStoreError) return fail(e.message);
    const next = input.toDataDir
      ? `Remove ${config.dataDir} (it is incomplete) and run the same command again.`
      : 'Nothing was lost: run the same command again to carry on.';
    return fail(`${(e as Error).stack ?? String(e)}\n${next}`);
  }
  const direction = input.toDataDir ? `into ${path.resolve(input.toDataDir)}` : 'into the database';
  out(`Migration ${direction}:`);
  for (const line of summaryLines(report)) (reportOk(report) ? out : err)(line);
  return reportOk(report) ? 0 : 1;
}
