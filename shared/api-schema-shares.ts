/** Share links as their owner sees them (docs/sharing.md), as the API answers them (shared/api-schema.ts). */
import { array, boolean, dateTime, integer, named, nullable, object, oneOf, string } from './api-schema.js';

/** Whether a share link answers: `expired` and `exhausted` (its downloads used up) answer as a revoked link. */
export const SHARE_STATES = ['active', 'expired', 'exhausted'] as const;
/** What a link shares: one file, a folder's whole tree (read-only), or a drop box into a folder (upload only). */
export const SHARE_KINDS = ['file', 'folder', 'upload'] as const;

export const ShareInfoSchema = named(
  'ShareInfo',
  object(
    {
      url: string(),
      kind: oneOf(SHARE_KINDS),
      username: string(),
      folder: nullable(string(), 'The file’s folder (null: the root); for a folder or upload link, the folder itself'),
      file: string('The file’s name; empty for a folder or upload link'),
      createdAt: dateTime(),
      expiresAt: nullable(dateTime(), 'When it stops working; null: never'),
      hasPassword: boolean('Whether it asks for a password (never the password or its hash)'),
      maxDownloads: nullable(integer(), 'Downloads it allows in all; null: no limit'),
      downloads: integer('Downloads so far (a download is a request for the bytes from their start, not a preview page or a seek)'),
      state: oneOf(SHARE_STATES),
    },
    'A share link as its owner sees it (GET /api/shares)',
  ),
);

export const SharesSchema = object({ shares: array(ShareInfoSchema) });
