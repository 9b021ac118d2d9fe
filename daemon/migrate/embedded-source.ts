/**
 * An embedded installation as `nimbus migrate` reads it, without changing anything: db.json
 * parsed in memory (not opened as a store, which would rewrite it and its backup), the
 * storage folder scanned as the daemon scans it (its whole tree; links never followed, names
 * the API cannot address skipped), and each trash record's entry in
 * `<data-dir>/trash/<user>/<id>/<name>` (a folder's whole subtree).
 */
import { readFile, lstat } from 'node:fs/promises';
import path from 'node:path';
import { eachFolder } from '../storage/index-tree.js';
import { scanUserDir } from '../storage/scan.js';
import { isDbData, migrateDb, type DbData, type StoredTrashItem } from '../store/schema.js';
import { refuseNewerDb, unknownFields } from '../store/upgrades.js';
import { MigrationRefused } from './target-claim.js';

/** A file of the installation: where it shows (or the trash item holding it) and where its bytes are. */
export interface SourceFile {
  username: string;
  /**
   * The folder's path (null: the user's root); for a trashed file, the folder it was deleted
   * from; for a file inside a trashed folder, its folder's path inside the item (`b`, `b/c`).
   */
  folder: string | null;
  name: string;
  /** The trash item holding it, or null. */
  trashId: string | null;
  /** True for a file inside a trashed folder (its folder is in that item's subtree). */
  inTrashedFolder: boolean;
  path: string;
  size: number;
  mtimeMs: number;
}

export interface SourceFolder {
  username: string;
  /** The folder's path from the user's root (`a/b/c`); in a trashed folder's subtree, from the item's folder (`b`, `b/c`). */
  name: string;
  trashId: string | null;
  mtimeMs: number;
  /** For a trashed folder item's top folder: the path it was deleted from (null: the root). */
  deletedFrom?: string | null;
}

export interface EmbeddedInstallation {
  /** The records, as the daemon would load them; trash records whose entry is gone are left out (the daemon drops them at start too). */
  data: DbData;
  files: SourceFile[];
  folders: SourceFolder[];
  /** What was not taken, and why (for the summary). */
  skipped: string[];
}

export async function readDbJson(dataDir: string): Promise<DbData> {
  const file = path.join(dataDir, 'db.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${dataDir} holds no db.json: not a Nimbus data directory`);
    throw err;
  }
  const data: unknown = JSON.parse(text);
  // Before the shape check, as the daemon does: a newer layout may not look like a store at all.
  refuseNewerDb(data, file);
  if (!isDbData(data)) throw new Error(`${file} is not a Nimbus store`);
  migrateDb(data);
  return data;
}

/**
 * The database has a table per collection this code knows: a collection it does not (a newer
 * minor version's, or one added by hand) would be left behind, so the migration stops first.
 */
export function refuseUnknownCollections(data: object, file: string): void {
  const names = Object.keys(unknownFields(data));
  if (names.length === 0) return;
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  throw new MigrationRefused(
    `${file} holds ${list}, which this Nimbus does not know (written by a newer Nimbus, or by hand): the database has no ` +
      'place for them, so migrating would lose them. Upgrade Nimbus, or remove them from db.json if nothing needs them. Nothing was changed.',
  );
}

export async function readEmbedded(dataDir: string, storageDir: string): Promise<EmbeddedInstallation> {
  const data = await readDbJson(dataDir);
  const files: SourceFile[] = [];
  const folders: SourceFolder[] = [];
  const skipped: string[] = [];
  for (const { username } of data.users) {
    const node = await scanUserDir(storageDir, username);
    const at = (...parts: string[]) => path.join(storageDir, username, ...parts);
    for (const [name, meta] of node.root)
      files.push({ username, folder: null, name, trashId: null, inTrashedFolder: false, path: at(name), ...meta });
    // Every depth, parents first (eachFolder visits a folder before the ones inside it).
    eachFolder(node.folders, null, (folder, f) => {
      folders.push({ username, name: folder, trashId: null, mtimeMs: f.mtimeMs });
      for (const [name, meta] of f.files)
        files.push({ username, folder, name, trashId: null, inTrashedFolder: false, path: at(...folder.split('/'), name), ...meta });
    });
  }
  const kept: StoredTrashItem[] = [];
  const users = new Set(data.users.map((u) => u.username));
  for (const item of data.trash) {
    const entry = path.join(dataDir, 'trash', item.username, item.id, item.name);
    const stat = users.has(item.username) ? await lstat(entry).catch(() => null) : null;
    if (item.kind === 'file' && stat?.isFile()) {
      files.push({ ...placeOf(item), inTrashedFolder: false, path: entry, size: stat.size, mtimeMs: stat.mtimeMs });
    } else if (item.kind === 'folder' && stat?.isDirectory()) {
      folders.push({ username: item.username, name: item.name, trashId: item.id, mtimeMs: stat.mtimeMs, deletedFrom: item.folder });
      // The item's directory read as a user's is (its subtree at every depth, links never followed): `item.name` stands for the user.
      const tree = await scanUserDir(path.dirname(entry), item.name);
      const inItem = (folder: string | null, name: string, meta: { size: number; mtimeMs: number }) =>
        files.push({
          username: item.username,
          folder: folder === null ? item.name : `${item.name}/${folder}`,
          name,
          trashId: item.id,
          inTrashedFolder: true,
          path: path.join(entry, ...(folder === null ? [] : folder.split('/')), name),
          ...meta,
        });
      for (const [name, meta] of tree.root) inItem(null, name, meta);
      eachFolder(tree.folders, null, (folder, f) => {
        folders.push({ username: item.username, name: `${item.name}/${folder}`, trashId: item.id, mtimeMs: f.mtimeMs });
        for (const [name, meta] of f.files) inItem(folder, name, meta);
      });
    } else {
      skipped.push(`trash item ${item.id} of ${item.username} (${item.kind} ${item.name}): nothing at ${entry}`);
      continue;
    }
    kept.push(item);
  }
  data.trash = kept;
  return { data, files, folders, skipped };
}

const placeOf = (item: StoredTrashItem) => ({ username: item.username, folder: item.folder, name: item.name, trashId: item.id });
