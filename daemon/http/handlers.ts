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
import { ApiError, explainedBy } from '../errors.js';
import * as files from '../services/files.js';
import * as folders from '../services/folders.js';
import * as keys from '../services/keys.js';
import type { Caller } from '../services/keys.js';
import * as roles from '../services/roles.js';
import * as users from '../services/users.js';
import { openSharedFile, shareFile, unshareFile } from '../services/shares.js';
import { confirmVerification, isVerificationValid, sendVerification } from '../services/verification.js';
import { VERSION } from '../version.js';
import { sendFile } from './download.js';
import type { EventHub } from './events.js';
import { openApiDocument } from './openapi.js';
import { page, PAGE_CSP } from './pages.js';
import type { Page } from './params.js';
import type { FailureThrottle } from './throttle.js';

export interface HandlerInput<Id extends EndpointId> {
  /** Koa's context of this request. */
  ctx: Context;
  params: ParamsOf<Id>;
  page: Page;
  nimbus: NimbusContext;
  /** Who called, by their key; null on public rows. */
  caller: Caller | null;
  events: EventHub;
  /** Counts a client's failures (wrong keys, unknown share links) towards a 429. */
  throttle: FailureThrottle;
}

/** What a handler may answer: the endpoint's response, or the same already serialised. */
export type HandlerResult<Id extends EndpointId> = ResponseOf<Id> | JsonText<ResponseOf<Id>>;

export type Handler<Id extends EndpointId> = (input: HandlerInput<Id>) => HandlerResult<Id> | Promise<HandlerResult<Id>>;

const jsonText = <T>(value: T) => JSON.stringify(value) as JsonText<T>;

/** Sends one page of a list with X-Total-Count. */
function paged<T>(ctx: Context, items: T[], pg: Page): T[] {
  ctx.set('X-Total-Count', String(items.length));
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

function notYet(): never {
  throw new ApiError('route_not_found', 'Not implemented yet');
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
  'user.edit': async ({ nimbus, params }) => ({
    msg: 'User updated',
    // newpassword is optional: without it the password stays (DaneeCloud's clients always send it).
    user: await users.editUser(nimbus, params.username, params.newusername, params.newemail, params.newpassword),
  }),
  'user.verify': async ({ nimbus, params }) => {
    const { delivery } = await sendVerification(nimbus, params.username);
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
  'folders.delete': async ({ nimbus, params }) => {
    await folders.deleteFolder(nimbus, params.username, params.folder);
    return { msg: 'Folder deleted' };
  },
  'folders.files.rename': async ({ nimbus, params }) => ({
    msg: 'File renamed',
    file: await files.renameFile(nimbus, params.username, params.folder, params.file, params.newname),
  }),
  'folders.files.delete': async ({ nimbus, params }) => {
    await files.deleteFile(nimbus, params.username, params.folder, params.file);
    return { msg: 'File deleted' };
  },

  'role.get': ({ nimbus, params }) => roles.getRole(nimbus, params.name),
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
  'files.delete': async ({ nimbus, params }) => {
    await files.deleteFile(nimbus, params.username, params.folder ?? null, params.file);
    return { msg: 'File deleted' };
  },
  'files.rename': async ({ nimbus, params }) => ({
    msg: 'File renamed',
    file: await files.renameFile(nimbus, params.username, params.folder ?? null, params.file, params.newname),
  }),
  'files.share': async ({ nimbus, params }) => ({
    msg: 'File shared',
    file: await shareFile(nimbus, params.username, params.folder ?? null, params.file),
  }),
  'files.noshare': async ({ nimbus, params }) => ({
    msg: 'File unshared',
    file: await unshareFile(nimbus, params.username, params.folder ?? null, params.file),
  }),
  'files.upload': async ({ nimbus, params, ctx }) => {
    const length = ctx.get('Content-Length');
    return {
      msg: 'File uploaded',
      file: await files.uploadFile(nimbus, {
        username: params.username,
        folder: params.folder ?? null,
        file: params.file,
        overwrite: params.overwrite === true,
        declaredLength: /^\d+$/.test(length) ? Number(length) : null,
        body: ctx.req,
      }),
    };
  },
  'files.download': async ({ nimbus, params, ctx }) => {
    const opened = await files.openDownload(nimbus, params.username, params.folder ?? null, params.file);
    sendFile(ctx, opened, params.file, nimbus.config.bodyIdleMs);
  },

  'dash.get': ({ nimbus, events }) => dash(nimbus, events),
  'dash.rescan': async ({ nimbus }) => {
    if (!nimbus.rescan) throw new ApiError('storage_unavailable', 'The file index cannot rescan now');
    await nimbus.rescan();
    if (nimbus.index.state === 'unavailable')
      throw new ApiError('storage_unavailable', `The storage directory ${nimbus.config.storageDir} is not available`);
    return { msg: 'Index reconciled with the disk', files: nimbus.index.totals().files };
  },
  events: ({ ctx, events, caller }) => events.attach(ctx, caller?.credential ?? null),

  'keys.list': ({ nimbus }) => ({ keys: keys.listKeys(nimbus) }),
  'keys.create': async ({ nimbus, params }) => {
    const created = await keys.createKey(nimbus, params.label, params.scope, params.dialect ?? 'nimbus');
    return { msg: 'Key created; it is shown only this once', ...created };
  },
  'keys.delete': async ({ nimbus, params }) => {
    await keys.deleteKey(nimbus, params.label);
    return { msg: 'Key deleted' };
  },
  'keys.rotate': async ({ nimbus }) => ({ msg: 'Admin key replaced; it is shown only this once', key: await keys.rotateAdminKey(nimbus) }),
  // Issue 12: the auth API (docs/accounts.md); being built.
  'auth.login': notYet,
  'auth.logout': notYet,
  'auth.me': notYet,
  'auth.password': notYet,
  'auth.reset': notYet,
  'auth.reset.confirm': notYet,
  'auth.register': notYet,
  'auth.sessions': notYet,
  'auth.sessions.delete': notYet,
  openapi: () => (openApiCache ??= jsonText(openApiDocument(VERSION))),

  'share.download': async ({ nimbus, params, ctx, throttle }) => {
    throttleUnknownLinks(ctx, throttle, nimbus.store.sharesByToken.has(params.token));
    const { opened, name } = await openSharedFile(nimbus, params.token).catch(explainedBy(DEAD_LINK_PAGE));
    sendFile(ctx, opened, name, nimbus.config.bodyIdleMs);
  },
  verify: async ({ nimbus, params, ctx }) => {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.type = 'text/html';
    // A HEAD (a link checker, a mail scanner) must not use up the one-time link.
    if (ctx.method === 'HEAD') {
      if (!isVerificationValid(nimbus, params.token))
        throw explainedBy(USED_LINK_PAGE)(new ApiError('token_invalid', 'This link has expired or was already used'));
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
  ctx.set('X-Total-Count', String(result.total));
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
    storage: { usedBytes: totals.usedBytes, dir: nimbus.config.storageDir, available: nimbus.index.state !== 'unavailable' },
    index: { state: nimbus.index.state, watcher: nimbus.watcherMode },
    orphans: [...nimbus.orphans].sort(),
    mail: { delivery: nimbus.mailer.delivery },
    eventStreams: events.size,
  };
}
