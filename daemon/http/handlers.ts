/**
 * One handler per endpoint id of the shared table. Each reads its checked parameters
 * (`ParamsOf<Id>`), calls a service and returns the response body (`ResponseOf<Id>`); the
 * dispatcher sets the status and publishes the events the row declares. Handlers never
 * build error responses: services throw, the error middleware answers.
 */
import type { Context } from 'koa';
import type { EndpointId, ParamsOf, ResponseOf } from '../../shared/endpoints.js';
import type { DashInfo, JsonText } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError, explainedBy, invalidToken } from '../errors.js';
import * as files from '../services/files.js';
import * as folders from '../services/folders.js';
import * as keys from '../services/keys.js';
import type { Caller } from '../services/keys.js';
import * as roles from '../services/roles.js';
import { mayStillHave, standsAsAuthorized } from '../services/standing.js';
import { catchUpOnMiss, getUsage } from '../services/records.js';
import * as trash from '../services/trash.js';
import { searchFilesJson } from '../services/search.js';
import * as transfers from '../services/transfers.js';
import * as users from '../services/users.js';
import { editAccount } from '../services/account-edits.js';
import { openSharedFile, shareFile, unshareFile } from '../services/shares.js';
import { confirmVerification, isVerificationValid, sendVerification } from '../services/verification.js';
import { checkHealth } from '../services/health.js';
import { mailAsker } from '../services/caps.js';
import { VERSION } from '../version.js';
import { answerHeader } from './response.js';
import { sendFile } from './download.js';
import { sendThumbnail } from './thumbnail-response.js';
import { openThumbnail } from '../services/thumbnails.js';
import { sendZip } from './zip-response.js';
import { withUploadBody } from './upload-body.js';
import { planZip } from '../services/zip.js';
import type { EventHub } from './events.js';
import { openApiDocument } from './openapi.js';
import { page, PAGE_CSP, sendSharePreview, sharePreviewKind } from './pages.js';
import type { Page } from './params.js';
import type { FailureThrottle } from './throttle.js';
import type { LoginThrottle } from './login-throttle.js';
import { clearSessionCookie, sessionCookie } from './cookies.js';
import * as auth from '../services/auth.js';
import { confirmReset, requestReset } from '../services/password-reset.js';
import { describeDevice } from '../services/sessions.js';

export interface HandlerInput<Id extends EndpointId> {
  /** Koa's context of this request. */
  ctx: Context;
  params: ParamsOf<Id>;
  page: Page;
  nimbus: NimbusContext;
  /** Who called, by their key or session; null on public rows (authorize, daemon/http/app.ts). */
  caller: Caller | null;
  events: EventHub;
  /** Counts a client's failures (wrong keys, unknown share links) towards a 429. */
  throttle: FailureThrottle;
  /** Counts failed sign-ins per username and per address (429 too_many_attempts). */
  logins: LoginThrottle;
}

/** What a handler may answer: the endpoint's response, or the same already serialised. */
export type HandlerResult<Id extends EndpointId> = ResponseOf<Id> | JsonText<ResponseOf<Id>>;

export type Handler<Id extends EndpointId> = (input: HandlerInput<Id>) => HandlerResult<Id> | Promise<HandlerResult<Id>>;

const jsonText = <T>(value: T) => JSON.stringify(value) as JsonText<T>;

/** Sends one page of a list with X-Total-Count. */
function paged<T>(ctx: Context, items: T[], pg: Page): T[] {
  answerHeader(ctx, 'X-Total-Count', String(items.length));
  return pg.offset === 0 && pg.limit >= items.length ? items : items.slice(pg.offset, pg.offset + pg.limit);
}

let openApiCache: JsonText<ResponseOf<'openapi'>> | null = null;

const DEAD_LINK_PAGE = {
  title: 'Link not found',
  message: 'This link does not exist or is no longer shared. Ask the person who sent it for a new one.',
  // A person who opens a dead link in a browser gets a page; API clients keep the JSON error.
  browsersOnly: true,
};
const USED_LINK_PAGE = { title: 'Link expired or already used', message: 'Ask for a new verification e-mail.', browsersOnly: false };

/** The caller of a row that is not public (authorize has found one, or answered 401). */
function signedIn(caller: Caller | null): Caller {
  if (!caller) throw new ApiError('unauthorized', 'Sign in or send an API key');
  return caller;
}

/** Where a sign-in comes from, for the session list. */
const clientOf = (ctx: Context): auth.Client => ({
  address: ctx.socket.remoteAddress ?? 'unknown',
  device: describeDevice(ctx.get('User-Agent')),
});

/**
 * NIMBUS_REQUIRE_VERIFIED=1: a user who is not an admin and whose e-mail is not verified may
 * not upload or share (403 `email_not_verified`); an admin acting on their files may.
 */
function assertMayPublish(nimbus: NimbusContext, caller: Caller | null): void {
  if (!nimbus.config.requireVerified || !caller || caller.admin || caller.username === null) return;
  if (nimbus.store.users.get(caller.username)?.emailVerified !== true)
    throw new ApiError('email_not_verified', 'Verify your e-mail address first (Settings → Verify e-mail)');
}

export const HANDLERS: { [Id in EndpointId]: Handler<Id> } = {
  'user.get': ({ nimbus, params }) => users.getUser(nimbus, params.username),
  'user.all': ({ nimbus, ctx, page: pg }) => paged(ctx, users.listUsers(nimbus), pg),
  'user.create': async ({ nimbus, params }) => ({
    msg: 'User created',
    user: await users.createUser(nimbus, params.username, params.email, params.password),
  }),
  'user.delete': async ({ nimbus, params }) => {
    await users.deleteUser(nimbus, params.username);
    return { msg: 'User deleted' };
  },
  'user.edit': async ({ nimbus, params, caller, ctx, logins }) => ({
    msg: 'User updated',
    user: await editAccount(nimbus, logins, signedIn(caller), params, clientOf(ctx).address),
  }),
  'user.verify': async ({ nimbus, params, caller }) => {
    const { delivery } = await sendVerification(nimbus, params.username, mailAsker(caller));
    return { msg: delivery === 'smtp' ? 'Verification e-mail sent' : 'Verification e-mail written to the outbox', delivery };
  },
  'user.role': async ({ nimbus, params }) => ({
    msg: 'Role changed',
    user: await users.setUserRole(nimbus, params.username, params.name),
  }),

  'folders.list': ({ nimbus, params, ctx, page: pg }) => ({ folders: paged(ctx, folders.listFolders(nimbus, params.username), pg) }),
  'folders.files': ({ nimbus, params, ctx, page: pg }) => listFiles(nimbus, ctx, params.username, params.folder, pg),
  'folders.create': async ({ nimbus, params }) => ({
    msg: 'Folder created',
    folder: await folders.createFolder(nimbus, params.username, params.folder),
  }),
  'folders.delete': async ({ nimbus, params }) => ({
    msg: 'Folder deleted',
    trashId: await folders.deleteFolder(nimbus, params.username, params.folder, params.permanent === true),
  }),
  'folders.files.rename': async ({ nimbus, params }) => ({
    msg: 'File renamed',
    file: await files.renameFile(nimbus, params.username, params.folder, params.file, params.newname),
  }),
  'folders.files.delete': async ({ nimbus, params }) => ({
    msg: 'File deleted',
    trashId: await files.deleteFile(nimbus, params.username, params.folder, params.file, params.permanent === true),
  }),

  'role.get': ({ nimbus, params, caller }) => {
    // A user may read their own role only; another name is as a role that does not exist.
    const me = signedIn(caller);
    if (!me.admin && nimbus.store.users.get(me.username ?? '')?.role !== params.name)
      throw new ApiError('role_not_found', 'Role not found');
    return roles.getRole(nimbus, params.name);
  },
  'role.all': ({ nimbus, ctx, page: pg }) => paged(ctx, roles.listRoles(nimbus), pg),
  'role.create': async ({ nimbus, params }) => ({
    msg: 'Role created',
    role: await roles.createRole(nimbus, params.name, params.maxStorage, params.badge),
  }),
  'role.delete': async ({ nimbus, params }) => {
    await roles.deleteRole(nimbus, params.name);
    return { msg: 'Role deleted' };
  },
  'role.edit': async ({ nimbus, params }) => ({
    msg: 'Role updated',
    role: await roles.editRole(nimbus, params.name, params.newname, params.maxStorage, params.badge),
  }),

  'files.list': ({ nimbus, params, ctx, page: pg }) => listFiles(nimbus, ctx, params.username, params.folder ?? null, pg),
  'files.search': ({ nimbus, params, ctx, page: pg }) => {
    const result = searchFilesJson(nimbus, params.username, params.q, pg.offset, pg.limit);
    answerHeader(ctx, 'X-Total-Count', String(result.total));
    return result.json;
  },
  'files.delete': async ({ nimbus, params }) => ({
    msg: 'File deleted',
    trashId: await files.deleteFile(nimbus, params.username, params.folder ?? null, params.file, params.permanent === true),
  }),
  'files.rename': async ({ nimbus, params }) => ({
    msg: 'File renamed',
    file: await files.renameFile(nimbus, params.username, params.folder ?? null, params.file, params.newname),
  }),
  'files.share': async ({ nimbus, params, caller }) => {
    assertMayPublish(nimbus, caller);
    return {
      msg: 'File shared',
      file: await shareFile(nimbus, params.username, params.folder ?? null, params.file),
    };
  },
  'files.noshare': async ({ nimbus, params }) => ({
    msg: 'File unshared',
    file: await unshareFile(nimbus, params.username, params.folder ?? null, params.file),
  }),
  'files.upload': async ({ nimbus, params, ctx, caller }) => {
    assertMayPublish(nimbus, caller);
    const me = signedIn(caller);
    return {
      msg: 'File uploaded',
      file: await withUploadBody(ctx, ({ body, declaredLength }) =>
        files.uploadFile(nimbus, {
          username: params.username,
          folder: params.folder ?? null,
          file: params.file,
          overwrite: params.overwrite === true,
          declaredLength,
          body,
          callerMayStill: () => mayStillHave(nimbus, me, params.username),
        }),
      ),
    };
  },
  // Issue 13 (docs/explorer.md).
  'files.move': async ({ nimbus, params }) => ({
    msg: 'File moved',
    file: await transfers.moveFile(nimbus, params.username, params.folder ?? null, params.file, params.to ?? null),
  }),
  'files.copy': async ({ nimbus, params }) => ({
    msg: 'File copied',
    file: await transfers.copyFile(nimbus, params.username, params.folder ?? null, params.file, params.to ?? null),
  }),
  'files.thumbnail': async ({ nimbus, params, ctx }) => {
    const source = { username: params.username, folder: params.folder ?? null, file: params.file };
    await sendThumbnail(ctx, await openThumbnail(nimbus, source, params.size ?? 256));
  },
  'folders.rename': async ({ nimbus, params }) => ({
    msg: 'Folder renamed',
    folder: await transfers.renameFolder(nimbus, params.username, params.folder, params.newname),
  }),
  'folders.download': ({ nimbus, params, ctx }) =>
    sendZip(ctx, nimbus, planZip(nimbus, params.username, params.folder ?? null, params.files ?? null)),
  'usage.get': ({ nimbus, params }) => ({ usage: getUsage(nimbus, params.username) }),
  'trash.list': ({ nimbus, params, ctx, page: pg }) => ({ items: paged(ctx, trash.listTrash(nimbus, params.username), pg) }),
  'trash.restore': async ({ nimbus, params }) => ({
    msg: 'Restored from the trash',
    restored: await trash.restoreItem(nimbus, params.username, params.id, params.rename === true),
  }),
  'trash.delete': async ({ nimbus, params }) => {
    await trash.deleteItem(nimbus, params.username, params.id);
    return { msg: 'Deleted from the trash for good' };
  },
  'trash.empty': async ({ nimbus, params }) => ({
    msg: 'Trash emptied',
    removed: await trash.emptyTrash(nimbus, params.username),
  }),
  'files.download': async ({ nimbus, params, ctx }) => {
    const opened = await files.openDownload(nimbus, params.username, params.folder ?? null, params.file);
    await sendFile(ctx, opened, params.file, nimbus.config.bodyIdleMs, { inline: params.inline === true });
  },

  'dash.get': ({ nimbus, events }) => dash(nimbus, events),
  'dash.rescan': async ({ nimbus }) => {
    if (!nimbus.rescan) throw new ApiError('storage_unavailable', 'The file index cannot rescan now');
    await nimbus.rescan();
    if (nimbus.index.state === 'unavailable')
      throw new ApiError('storage_unavailable', `The storage directory ${nimbus.config.storageDir} is not available`);
    return { msg: 'Index reconciled with the disk', files: nimbus.index.totals().files };
  },
  events: ({ ctx, events, caller, nimbus }) => {
    const me = signedIn(caller);
    // A user's stream carries only the events naming them (and the index's state), and only
    // while they stand as now: a role change or a rename closes it, and the client reconnects.
    events.attach(ctx, {
      credential: me.credential,
      onlyUser: me.admin ? null : me.username,
      standsAsOpened: me.username === null ? null : () => standsAsAuthorized(nimbus, me),
    });
  },

  'keys.list': ({ nimbus, caller }) => ({ keys: keys.listKeys(nimbus, signedIn(caller)) }),
  'keys.create': async ({ nimbus, params, caller }) => {
    const created = await keys.createKey(nimbus, signedIn(caller), params.label, params.scope, params.dialect ?? 'nimbus');
    return { msg: 'Key created; it is shown only this once', ...created };
  },
  'keys.delete': async ({ nimbus, params, caller }) => {
    await keys.deleteKey(nimbus, signedIn(caller), params.label, params.username);
    return { msg: 'Key deleted' };
  },
  'keys.rotate': async ({ nimbus }) => ({ msg: 'Admin key replaced; it is shown only this once', key: await keys.rotateAdminKey(nimbus) }),
  // The auth API (docs/accounts.md): the cookie is set and cleared here, the rest is services/auth.ts.
  'auth.login': async ({ nimbus, params, ctx, logins }) => {
    const { token, me } = await auth.login(nimbus, logins, params.username, params.password, clientOf(ctx));
    ctx.set('Set-Cookie', sessionCookie(token, nimbus.config.publicUrl));
    return me;
  },
  'auth.logout': async ({ nimbus, ctx, caller }) => {
    await auth.logout(nimbus, signedIn(caller));
    ctx.set('Set-Cookie', clearSessionCookie(nimbus.config.publicUrl));
    return { msg: 'Signed out' };
  },
  'auth.me': ({ nimbus, caller }) => auth.me(nimbus, signedIn(caller)),
  'auth.password': async ({ nimbus, params, ctx, caller, logins }) => {
    await auth.changePassword(nimbus, logins, signedIn(caller), params.password, params.newpassword, clientOf(ctx).address);
    return { msg: 'Password changed; your other sessions were signed out' };
  },
  'auth.reset': async ({ nimbus, params }) => {
    await requestReset(nimbus, params.username, params.email);
    return { msg: 'If that account exists and has an e-mail address, a reset link is on its way' };
  },
  'auth.reset.confirm': async ({ nimbus, params }) => {
    await confirmReset(nimbus, params.token, params.newpassword);
    return { msg: 'Password changed; sign in with the new one' };
  },
  'auth.register': async ({ nimbus, params, ctx }) => {
    const { token, user } = await auth.register(nimbus, params.username, params.email, params.password, clientOf(ctx));
    ctx.set('Set-Cookie', sessionCookie(token, nimbus.config.publicUrl));
    return { msg: 'Account created; a verification e-mail is on its way', user };
  },
  'auth.options': ({ nimbus }) => ({ registration: nimbus.config.registration, requireVerified: nimbus.config.requireVerified }),
  'auth.sessions': ({ nimbus, caller }) => ({ sessions: auth.listSessions(nimbus, signedIn(caller)) }),
  'auth.sessions.delete': async ({ nimbus, params, caller }) => {
    await auth.endSession(nimbus, signedIn(caller), params.id);
    return { msg: 'Session ended' };
  },
  openapi: () => (openApiCache ??= jsonText(openApiDocument(VERSION))),
  'health.get': async ({ nimbus, ctx }) => {
    const health = await checkHealth(nimbus);
    if (health.status !== 'unavailable') return health;
    // Not an error of the request ({error, code}): the answer a balancer reads, with its own status.
    ctx.status = 503;
    ctx.body = health;
  },

  'share.download': async ({ nimbus, params, ctx, throttle }) => {
    // A link made through another daemon a moment ago is no unknown link: looked for caught up.
    await catchUpOnMiss(nimbus, () => nimbus.store.sharesByToken.has(params.token));
    throttleUnknownLinks(ctx, throttle, nimbus.store.sharesByToken.has(params.token));
    const { opened, name } = await openSharedFile(nimbus, params.token).catch(explainedBy(DEAD_LINK_PAGE));
    // A person's browser gets the preview page of a picture or a PDF; `inline` and `download` are its links.
    const preview = params.inline || params.download ? null : sharePreviewKind(ctx, name);
    if (preview) {
      await opened.close();
      sendSharePreview(ctx, params.token, name, preview, opened.size);
      return;
    }
    await sendFile(ctx, opened, name, nimbus.config.bodyIdleMs, { inline: params.inline === true && params.download !== true });
  },
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
    ctx.body = page('E-mail address confirmed', `Thank you, ${username}. Your e-mail address is verified; you can close this page.`);
    // Whose address it was: the row's `user.changed` names them, so an open UI shows "Verified" without a reload.
    return { username };
  },
};

/**
 * Counts a share token that names no share towards the client's 429 (the same count as
 * wrong keys), and refuses a client already blocked, before anything is looked up.
 */
function throttleUnknownLinks(ctx: Context, throttle: FailureThrottle, known: boolean): void {
  if (known) return;
  const client = ctx.socket.remoteAddress ?? 'unknown';
  const wait = throttle.retryAfter(client);
  if (wait > 0) throw new ApiError('too_many_requests', 'Too many unknown links; try again later', { 'Retry-After': String(wait) });
  throttle.fail(client, 'share links');
}

function listFiles(nimbus: NimbusContext, ctx: Context, username: string, folder: string | null, pg: Page) {
  // Pre-serialised: the same bytes as `{files: FileEntry[]}`, without re-serialising every entry per request.
  const result = folders.listFilesJson(nimbus, username, folder, pg.offset, pg.limit);
  answerHeader(ctx, 'X-Total-Count', String(result.total));
  return result.json;
}

function dash(nimbus: NimbusContext, events: EventHub): DashInfo {
  const totals = nimbus.index.totals();
  return {
    version: VERSION,
    uptime: Math.round((Date.now() - nimbus.startedAt) / 1000),
    users: nimbus.store.users.size,
    roles: nimbus.store.roles.size,
    files: totals.files,
    folders: totals.folders,
    shares: nimbus.store.sharesByToken.size,
    // Object mode has no folder: where the bytes are is the bucket.
    storage: {
      usedBytes: totals.usedBytes,
      dir: nimbus.config.s3 ? `s3://${nimbus.config.s3.bucket}` : nimbus.config.storageDir,
      available: nimbus.index.state !== 'unavailable',
    },
    index: { state: nimbus.index.state, watcher: nimbus.watcherMode },
    orphans: [...nimbus.orphans].sort(),
    mail: { delivery: nimbus.mailer.delivery },
    eventStreams: events.size,
  };
}
