/**
 * trash.restore (services/trash.ts): the service's policy for putting an item back, the name
 * it goes under and the checks it passes; the storage's trash moves it and shows it in the
 * index, and this module drops the item's record in the same step.
 */
import { checkFileName } from '../../shared/validation.js';
import type { TrashRestored } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError, conflict } from '../errors.js';
import type { StoredTrashItem } from '../store/schema.js';
import { NameTaken, trashTaken } from '../storage/file-storage.js';
import { splitFolder } from '../storage/paths.js';
import { joinFolder } from '../storage/index-tree.js';
import { requireUnlocked } from './lock-tokens.js';
import { assertNoCaseTwin, fileLock } from './name-locks.js';
import { requireUser } from './records.js';
import { itemLock, requireItem } from './trash-records.js';

/** How many " (restored N)" names a restore with `rename` tries before it gives up (409). */
const MAX_RESTORED_SUFFIX = 100;

/** What a renamed restore adds when the caller names no word of its own (API clients). */
const DEFAULT_SUFFIX = 'restored';

/** `report.pdf` → `report (restored).pdf`, then `report (restored 2).pdf`…; a folder's name has no extension. */
function restoredName(name: string, n: number, kind: 'file' | 'folder', word: string): string {
  const suffix = n === 1 ? ` (${word})` : ` (${word} ${n})`;
  const dot = kind === 'file' ? name.lastIndexOf('.') : -1;
  // A leading dot (".env") is a name, not an extension.
  if (dot <= 0) return `${name}${suffix}`;
  return `${name.slice(0, dot)}${suffix}${name.slice(dot)}`;
}

/** What the index holds at `name` in the folder (or root) a restore goes to, as a NameTaken; null when free. */
function takenInIndex(nimbus: NimbusContext, username: string, folder: string | null, name: string): NameTaken | null {
  if (nimbus.index.getFile(username, folder, name)) return new NameTaken('file');
  const dir = folder === null ? nimbus.index.user(username) : nimbus.index.folder(username, folder);
  if (dir?.folders.has(name)) return new NameTaken('folder');
  return null;
}

/**
 * Puts a trash item back where it was (a file's folder that is gone is made again). When the
 * name is taken again: 409 (`file_exists`, `folder_exists`, `name_case_conflict`) and nothing
 * changes, or with `rename` the item comes back beside it as "name (restored).ext" — or with
 * the caller's `word` (the UI's language) in the brackets.
 */
export async function restoreItem(
  nimbus: NimbusContext,
  username: string,
  id: string,
  rename: boolean,
  word: string = DEFAULT_SUFFIX,
): Promise<TrashRestored> {
  requireUser(nimbus, username);
  return nimbus.locks.run(itemLock(id), async () => {
    const item = requireItem(nimbus, username, id);
    const folder = item.folder;
    for (let n = 0; ; n++) {
      const as = n === 0 ? item.name : restoredName(item.name, n, item.kind, word);
      const checked = checkFileName(as);
      if (!checked.ok || checked.value !== as)
        throw conflict(item.kind === 'file' ? 'file_exists' : 'folder_exists', 'No free name to restore to');
      try {
        await restoreAs(nimbus, item, as);
        return { kind: item.kind, name: as, folder };
      } catch (err) {
        const taken = err instanceof NameTaken || (err instanceof ApiError && err.code === 'name_case_conflict');
        if (!taken || !rename || n >= MAX_RESTORED_SUFFIX) throw err instanceof NameTaken ? trashTaken(err) : err;
      }
    }
  });
}

/** One attempt to restore `item` under the name `as`: NameTaken (or a case conflict) when it is not free. */
async function restoreAs(nimbus: NimbusContext, item: StoredTrashItem, as: string): Promise<void> {
  const { username, kind, folder } = item;
  // The name's lock (as an upload's), and for an item in a folder the folder's (as its delete's).
  const inFolder = folder === null ? null : splitFolder(folder);
  const locks = [fileLock(username, folder, as), ...(inFolder === null ? [] : [fileLock(username, inFolder.parent, inFolder.name)])];
  await nimbus.locks.run(locks, async () => {
    const taken = takenInIndex(nimbus, username, folder, as);
    if (taken) throw taken;
    assertNoCaseTwin(nimbus, username, folder, as);
    // A new member of the folder it comes back to (and a name a WebDAV client may have locked).
    requireUnlocked(nimbus, username, [folder ?? '', joinFolder(folder, as)]);
    // The record goes in the step the item comes back (in object mode, in the rows' one commit): never an item both restored and listed.
    await nimbus.storage.trash.restore({ username, folder, name: item.name, kind, id: item.id, as }, () => nimbus.store.deleteTrash(item));
    await nimbus.store.commit();
  });
}
