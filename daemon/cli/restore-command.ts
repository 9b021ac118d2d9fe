/**
 * `nimbus restore DIR`: a backup made by `nimbus backup` put back into a data directory
 * (--data-dir / NIMBUS_DATA_DIR, and --storage-dir when the storage folder lives elsewhere),
 * every file checked against the manifest's sha256. docs/operations.md, "Backup and restore".
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { backendMode } from '../backends.js';
import { readRunFile } from '../run-file.js';
import { DataDirLock } from '../store/lock.js';
import { acquire, mib } from './backup-command.js';
import { MANIFEST, TREES, knownRecords, readManifest } from './backup-manifest.js';
import { refuseOtherBackends, treeSources, writeStoreFile } from './backup-sources.js';
import { CommandError, configFor, lockHolder, operands, say, warn, type Command } from './common.js';
import { copyTree } from './tree-copy.js';

const HELP = `Usage:
  nimbus restore DIR --data-dir TARGET [--storage-dir DIR] [--force]

Puts a backup made by \`nimbus backup\` (DIR holds ${MANIFEST}) into the data directory TARGET
(or NIMBUS_DATA_DIR): db.json, the storage folder, the trash and earlier versions. Every file
is checked against the manifest's size and sha256; db.json is written last, so an interrupted
restore never looks like a finished one: run it again with --force to finish it.

Refuses a data directory that is not empty (pass --force to replace what it holds: its store,
files, trash and versions are made equal to the backup's, caches are dropped, its logs and
admin key stay), and one a daemon runs on. The admin key is not part of a backup: the restored
daemon uses NIMBUS_API_KEY, or \`nimbus key show --data-dir TARGET\` prints (or makes) its own.
Embedded installations only (PostgreSQL: pg_restore; S3: the bucket's versions).
`;

/** What a data directory holds that a restore makes no sense beside: derived from the old store, rebuilt by the daemon. */
const DROPPED = ['cache', 'tus', 'tmp', 'db.json.bak'];

export const restoreCommand: Command = {
  help: HELP,
  options: { force: { type: 'boolean' } },
  async run(args, values, input) {
    const [source] = operands(args, 1, 'nimbus restore DIR --data-dir TARGET');
    const dir = path.resolve(source);
    const manifest = await readManifest(dir);
    if (!manifest) throw new CommandError(`${dir} holds no ${MANIFEST}: not a backup made by \`nimbus backup\``);
    if (manifest.state === 'incomplete' || !manifest.store)
      throw new CommandError(`the backup in ${dir} was interrupted; run \`nimbus backup ${dir}\` again to finish it first`);
    if (manifest.state === 'partial')
      warn(`nimbus restore: ${manifest.changing.length} files kept changing during that backup; their last whole copies are restored.`);
    const config = configFor(input);
    refuseOtherBackends(backendMode(config), 'restore');
    const { dataDir, storageDir } = config;
    const running = (await readRunFile(dataDir))?.pid ?? (await lockHolder(dataDir));
    if (running) throw new CommandError(`a daemon (pid ${running}) runs on ${dataDir}: stop it first`);
    for (const target of new Set([dataDir, storageDir])) {
      const entries = (await readdir(target).catch(() => [])).filter((name) => name !== 'lost+found');
      if (entries.length > 0 && values.force !== true)
        throw new CommandError(`${target} is not empty: restore into an empty data directory, or pass --force to replace what it holds`);
    }
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const lock = new DataDirLock(path.join(dataDir, 'nimbus.lock'));
    acquire(lock);
    try {
      say(`Restoring ${dir} (made ${manifest.finishedAt}) into ${dataDir}…`);
      await rm(path.join(dataDir, 'db.json'), { force: true });
      for (const name of DROPPED) await rm(path.join(dataDir, name), { recursive: true, force: true });
      const targets = treeSources(config);
      let bad = 0;
      for (const tree of TREES) {
        const expected = knownRecords(manifest, tree);
        const copy = await copyTree(path.join(dir, tree), targets[tree], expected);
        for (const record of copy.files) {
          const want = expected.get(record.path);
          if (!want || want.sha256 !== record.sha256 || want.size !== record.size) {
            warn(`  ${tree}/${record.path}: ${want ? 'differs from the manifest (damaged backup?)' : 'not in the manifest'}`);
            bad++;
          }
        }
        const restored = new Set(copy.files.map((record) => record.path));
        for (const missing of [...expected.keys()].filter((file) => !restored.has(file))) {
          warn(`  ${tree}/${missing}: in the manifest, missing from the backup`);
          bad++;
        }
        say(`  ${tree.padEnd(9)} ${copy.files.length} files (${mib(copy.copiedBytes)} copied)`);
      }
      if (bad > 0)
        throw new CommandError(
          `${bad} files did not match the manifest; the store was not restored (a daemon would start empty): check the backup`,
        );
      const store = await readFile(path.join(dir, 'db.json'));
      if (createHash('sha256').update(store).digest('hex') !== manifest.store.sha256)
        throw new CommandError(`${path.join(dir, 'db.json')} differs from the manifest: the backup is damaged`);
      await writeStoreFile(path.join(dataDir, 'db.json'), store);
      say(`Restored. Start it with: nimbus daemon --data-dir ${dataDir}`);
      return 0;
    } finally {
      lock.release();
    }
  },
};
