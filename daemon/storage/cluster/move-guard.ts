/**
 * Folder moves across daemons (docs/tree.md, "Cluster"). A daemon checks a move into a folder
 * against its own rows, which may lag another daemon's committed move by a notification: two
 * folders moved into each other through two daemons at once would both pass and commit a
 * loop, and neither would show anywhere. So in PostgreSQL a move into another folder holds
 * the user's move lock (transaction-scoped, on a connection of its own) from a check of the
 * target's ancestors in the database until its own commit is acknowledged: the second move
 * waits, then finds the first one's row and is refused (409). db.json has one daemon: no lock.
 */
import { conflict, databaseBusy, databaseUnavailable } from '../../errors.js';
import { Database } from '../../store/postgres/database.js';

/** The first of the move lock's two keys (a constant no other Nimbus lock uses); the second is the user's name hashed. */
const MOVE_LOCK = 0x6e696d6d; // "nimm"

/** The target and its ancestors in the database (a path has at most 64 levels: rows that loop end there). */
const TARGET_AND_ABOVE = `
  WITH RECURSIVE up(key, parent_id, depth) AS (
    SELECT key, parent_id, 0 FROM folders WHERE key = $1
    UNION ALL SELECT f.key, f.parent_id, up.depth + 1 FROM folders f JOIN up ON f.key = up.parent_id WHERE up.depth < 64
  )
  SELECT 1 FROM up WHERE key = $2 LIMIT 1`;

/**
 * Runs `write` (which changes the folder's row and commits it) once no folder move of the user
 * runs elsewhere and the database shows that `into` is neither the folder `folderId` nor inside
 * it; 409 `conflict` when it is. Moves to the root and renames in place cannot make a loop: run at once.
 */
export async function guardMove(
  database: Database | null,
  username: string,
  folderId: string,
  into: string | null,
  write: () => Promise<void>,
): Promise<void> {
  if (database === null || into === null) return write();
  try {
    await database.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MOVE_LOCK, username]);
      const { rows } = await client.query(TARGET_AND_ABOVE, [into, folderId]);
      if (rows.length > 0) throw conflict('conflict', 'A folder cannot be moved into itself or a folder inside it');
      await write();
    });
  } catch (err) {
    if (Database.isConnectionError(err)) throw databaseUnavailable();
    if (Database.isPoolBusy(err)) throw databaseBusy();
    throw err;
  }
}
