/**
 * Changes another daemon made, as this daemon's event stream and revocations see them
 * (docs/cluster.md, "Events"). With several daemons on one database, a browser's event
 * stream lands on one of them: the users, roles, shares and trash another daemon changed
 * reach this one as row changes from the store's LISTEN connection, and are published here
 * into this daemon's change feed (with this daemon's ids) as the same events the changing
 * daemon's own rows declared. File changes need nothing
 * here: object storage applies them to the file index, which announces them itself. A key
 * or session deleted elsewhere is revoked here too, so the streams it opened on this daemon
 * close (a deleted key already fails on every daemon: its row is gone).
 */
import type { ChangeEvent } from '../../shared/types.js';
import type { Revocations } from '../services/revocations.js';
import { sessionCredential } from '../services/sessions.js';
import type { StoredKey, StoredSession, StoredShare, StoredTrashItem, StoredUser } from '../store/schema.js';

/** One row another daemon changed (before/after: undefined when absent). */
export interface RemoteRowChange {
  collection: string;
  key: string;
  before: unknown;
  after: unknown;
}

/** The events and revocations one remote row change means. */
export function announceRemoteChange(change: RemoteRowChange, publish: (event: ChangeEvent) => void, revocations: Revocations): void {
  const event = (type: ChangeEvent['type'], username: string | null, folder: string | null = null, file: string | null = null) =>
    publish({ type, username, folder, file });
  switch (change.collection) {
    case 'users': {
      const user = (change.after ?? change.before) as StoredUser;
      event(change.after ? 'user.changed' : 'user.removed', user.username);
      return;
    }
    case 'roles':
      event('role.changed', null);
      return;
    case 'shares': {
      const share = (change.after ?? change.before) as StoredShare;
      event('share.changed', share.username, share.folder, share.kind ? null : share.file);
      return;
    }
    case 'trash': {
      const item = (change.after ?? change.before) as StoredTrashItem;
      event('trash.changed', item.username);
      return;
    }
    case 'keys':
      if (!change.after) revocations.revoke((change.before as StoredKey).hash);
      return;
    case 'sessions':
      if (!change.after) revocations.revoke(sessionCredential((change.before as StoredSession).id));
      return;
    default:
  }
}
