/** The handlers of an owner's share links: the list and an edit of a link's options (docs/sharing.md). */
import { editShare, listShares } from '../services/share-links.js';
import type { HandlerTable } from './handler-support.js';

export const SHARE_HANDLERS: HandlerTable<'shares.edit' | 'shares.list'> = {
  'shares.list': async ({ nimbus, params }) => ({ shares: await listShares(nimbus, params.username) }),
  'shares.edit': async ({ nimbus, params }) => ({
    msg: 'Link changed',
    share: await editShare(nimbus, params.username, params.folder ?? null, params.file, params),
  }),
};
