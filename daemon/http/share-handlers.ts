/** The handlers of an owner's share links: a folder's links, the list, and an edit of a link's options (docs/sharing.md). */
import { shareFolder, unshareFolder } from '../services/folder-links.js';
import { editShare, listShares } from '../services/share-links.js';
import { assertMayPublish } from './file-handlers.js';
import type { HandlerTable } from './handler-support.js';

export const SHARE_HANDLERS: HandlerTable<'shares.edit' | 'shares.list' | 'folders.share' | 'folders.noshare'> = {
  'folders.share': async ({ nimbus, params, caller }) => {
    assertMayPublish(nimbus, caller);
    return {
      msg: params.upload ? 'Upload link made' : 'Folder shared',
      share: await shareFolder(nimbus, params.username, params.folder, params.upload === true, params),
    };
  },
  'folders.noshare': async ({ nimbus, params }) => {
    await unshareFolder(nimbus, params.username, params.folder, params.upload === true);
    return { msg: params.upload ? 'Upload link revoked' : 'Folder unshared' };
  },
  'shares.list': async ({ nimbus, params }) => ({ shares: await listShares(nimbus, params.username) }),
  'shares.edit': async ({ nimbus, params }) => ({
    msg: 'Link changed',
    share: await editShare(nimbus, params.username, { folder: params.folder ?? null, file: params.file, upload: params.upload }, params),
  }),
};
