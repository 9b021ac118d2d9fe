/** The handlers of the links people open in a browser: a share link (and its password) and an e-mail verification link. */
import { explainedBy, invalidToken, type ErrorPage } from '../errors.js';
import { confirmVerification, isVerificationValid } from '../services/verification.js';
import type { HandlerTable } from './handler-support.js';
import { pageWords } from './page-words.js';
import { page, PAGE_CSP } from './pages.js';
import { serveShareLink } from './share-link.js';
import { unlockShare } from './share-unlock.js';
import { uploadThroughLink } from './upload-link.js';

const USED_LINK_PAGE: ErrorPage = {
  title: 'Link expired or already used',
  message: 'Ask for a new verification e-mail.',
  browsersOnly: false,
  words: 'usedLink',
};

export const LINK_HANDLERS: HandlerTable<'share.download' | 'share.unlock' | 'share.upload' | 'verify'> = {
  'share.download': (input) => serveShareLink(input),
  'share.unlock': async (input) => unlockShare(input),
  'share.upload': (input) => uploadThroughLink(input),
  verify: async ({ nimbus, params, ctx }) => {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.type = 'text/html';
    // A HEAD (a link checker, a mail scanner) must not use up the one-time link.
    if (ctx.method === 'HEAD') {
      if (!(await isVerificationValid(nimbus, params.token)))
        throw explainedBy(USED_LINK_PAGE)(invalidToken('This link has expired or was already used', 404));
      ctx.body = '';
      return;
    }
    const username = await confirmVerification(nimbus, params.token).catch(explainedBy(USED_LINK_PAGE));
    const { lang, w } = pageWords(ctx);
    ctx.body = page(w.confirmedTitle, w.confirmedMessage(username), lang);
    // Whose address it was: the row's `user.changed` names them, so an open UI shows "Verified" without a reload.
    return { username };
  },
};
