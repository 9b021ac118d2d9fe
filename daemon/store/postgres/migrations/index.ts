/**
 * The schema's migrations, in order (docs/cluster.md, "The store"). Each is a module
 * `NNN-name.ts` exporting `{ version, name, sql }`; daemon/store/postgres/migrate.ts applies the
 * missing ones at start. A migration, once released, is never edited: add the next one.
 */
import records from './001-records.js';
import reservations from './002-reservations.js';
import folderParents from './003-folder-parents.js';
import davState from './004-dav-state.js';
import shareDownloads from './005-share-downloads.js';
import folderLinks from './006-folder-links.js';
import versions from './007-versions.js';
import tusUploads from './008-tus-uploads.js';
import badges from './009-badges.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

export const MIGRATIONS: readonly Migration[] = [
  records,
  // The quota's `reservations` table (docs/cluster.md, "Quota across daemons").
  reservations,
  // Folders inside folders: `parent_id` (docs/tree.md, "Cluster").
  folderParents,
  // WebDAV's locks and dead properties (docs/webdav.md, "Locks and properties").
  davState,
  // Share links' download counts (docs/sharing.md, "Download limits").
  shareDownloads,
  // Folder and upload links: one of each kind per folder (docs/sharing.md).
  folderLinks,
  // Files' earlier versions (docs/versions.md).
  versions,
  // Resumable uploads with several daemons (docs/uploads.md).
  tusUploads,
  // Uploaded badge pictures (shared/badges.ts).
  badges,
];
