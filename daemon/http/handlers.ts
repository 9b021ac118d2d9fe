/**
 * One handler per endpoint id of the shared table. Each reads checked parameters, calls a
 * service and returns the response body; the dispatcher sets the status from the table.
 * Handlers never build error responses: services throw, the error middleware answers.
 */
import type { Context } from 'koa';
import type { EndpointId } from '../../shared/endpoints.js';
import type { DashInfo, Dialect, KeyScope } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import * as files from '../services/files.js';
import * as folders from '../services/folders.js';
import * as keys from '../services/keys.js';
import * as roles from '../services/roles.js';
import * as users from '../services/users.js';
import { shareFile, unshareFile } from '../services/shares.js';
import { confirmVerification, isVerificationValid, sendVerification } from '../services/verification.js';
import { VERSION } from '../version.js';
import { sendFile } from './download.js';
import type { EventHub } from './events.js';
import { openApiDocument } from './openapi.js';
import { page, PAGE_CSP, sendPage } from './pages.js';
import type { Page, Params } from './params.js';

export interface HandlerInput {
  ctx: Context;
  p: Params;
  page: Page;
  n: NimbusContext;
  events: EventHub;
}

export type Handler = (input: HandlerInput) => unknown;

const s = (p: Params, name: string) => p[name] as string;
const folderOf = (p: Params) => (p.folder as string | undefined) ?? null;

/** Sends one page of a list with X-Total-Count. */
function paged<T>(ctx: Context, items: T[], pg: Page): T[] {
  ctx.set('X-Total-Count', String(items.length));
  return pg.offset === 0 && pg.limit >= items.length ? items : items.slice(pg.offset, pg.offset + pg.limit);
}

let openApiCache: string | null = null;

export const HANDLERS: Record<EndpointId, Handler> = {
  'user.get': ({ n, p }) => users.getUser(n, s(p, 'username')),
  'user.all': ({ n, ctx, page: pg }) => paged(ctx, users.listUsers(n), pg),
  'user.create': async ({ n, p }) => ({
    msg: 'User created',
    user: await users.createUser(n, s(p, 'username'), s(p, 'email'), s(p, 'password')),
  }),
  'user.delete': async ({ n, p }) => {
    await users.deleteUser(n, s(p, 'username'));
    return { msg: 'User deleted' };
  },
  'user.edit': async ({ n, p }) => ({
    msg: 'User updated',
    // newpassword is optional: without it the password stays (DaneeCloud's clients always send it).
    user: await users.editUser(n, s(p, 'username'), s(p, 'newusername'), s(p, 'newemail'), p.newpassword as string | undefined),
  }),
  'user.verify': async ({ n, p }) => {
    const { delivery } = await sendVerification(n, s(p, 'username'));
    return { msg: delivery === 'smtp' ? 'Verification e-mail sent' : 'Verification e-mail written to the outbox', delivery };
  },
  'user.role': async ({ n, p }) => ({ msg: 'Role changed', user: await users.setUserRole(n, s(p, 'username'), s(p, 'name')) }),

  'folders.list': ({ n, p, ctx, page: pg }) => ({ folders: paged(ctx, folders.listFolders(n, s(p, 'username')), pg) }),
  'folders.files': ({ n, p, ctx, page: pg }) => listFiles(n, ctx, s(p, 'username'), s(p, 'folder'), pg),
  'folders.create': async ({ n, p }) => ({
    msg: 'Folder created',
    folder: await folders.createFolder(n, s(p, 'username'), s(p, 'folder')),
  }),
  'folders.delete': async ({ n, p }) => {
    await folders.deleteFolder(n, s(p, 'username'), s(p, 'folder'));
    return { msg: 'Folder deleted' };
  },
  'folders.files.rename': async ({ n, p }) => ({
    msg: 'File renamed',
    file: await files.renameFile(n, s(p, 'username'), s(p, 'folder'), s(p, 'file'), s(p, 'newname')),
  }),
  'folders.files.delete': async ({ n, p }) => {
    await files.deleteFile(n, s(p, 'username'), s(p, 'folder'), s(p, 'file'));
    return { msg: 'File deleted' };
  },

  'role.get': ({ n, p }) => roles.getRole(n, s(p, 'name')),
  'role.all': ({ n, ctx, page: pg }) => paged(ctx, roles.listRoles(n), pg),
  'role.create': async ({ n, p }) => ({
    msg: 'Role created',
    role: await roles.createRole(n, s(p, 'name'), p.maxStorage as number, s(p, 'badge')),
  }),
  'role.delete': async ({ n, p }) => {
    await roles.deleteRole(n, s(p, 'name'));
    return { msg: 'Role deleted' };
  },
  'role.edit': async ({ n, p }) => ({
    msg: 'Role updated',
    role: await roles.editRole(n, s(p, 'name'), s(p, 'newname'), p.maxStorage as number, s(p, 'badge')),
  }),

  'files.list': ({ n, p, ctx, page: pg }) => listFiles(n, ctx, s(p, 'username'), folderOf(p), pg),
  'files.delete': async ({ n, p }) => {
    await files.deleteFile(n, s(p, 'username'), folderOf(p), s(p, 'file'));
    return { msg: 'File deleted' };
  },
  'files.rename': async ({ n, p }) => ({
    msg: 'File renamed',
    file: await files.renameFile(n, s(p, 'username'), folderOf(p), s(p, 'file'), s(p, 'newname')),
  }),
  'files.share': async ({ n, p }) => ({ msg: 'File shared', file: await shareFile(n, s(p, 'username'), folderOf(p), s(p, 'file')) }),
  'files.noshare': async ({ n, p }) => ({ msg: 'File unshared', file: await unshareFile(n, s(p, 'username'), folderOf(p), s(p, 'file')) }),
  'files.upload': async ({ n, p, ctx }) => {
    const length = ctx.get('Content-Length');
    return {
      msg: 'File uploaded',
      file: await files.uploadFile(n, {
        username: s(p, 'username'),
        folder: folderOf(p),
        file: s(p, 'file'),
        overwrite: p.overwrite === true,
        declaredLength: /^\d+$/.test(length) ? Number(length) : null,
        body: ctx.req,
      }),
    };
  },
  'files.download': async ({ n, p, ctx }) => {
    sendFile(ctx, await files.openDownload(n, s(p, 'username'), folderOf(p), s(p, 'file')), s(p, 'file'), n.config.bodyIdleMs);
  },

  'dash.get': ({ n, events }) => dash(n, events),
  'dash.rescan': async ({ n }) => {
    if (!n.rescan) throw new ApiError('storage_unavailable', 'The file index cannot rescan now');
    await n.rescan();
    if (n.index.state === 'unavailable')
      throw new ApiError('storage_unavailable', `The storage directory ${n.config.storageDir} is not available`);
    return { msg: 'Index reconciled with the disk', files: n.index.totals().files };
  },
  events: ({ ctx, events }) => events.attach(ctx),

  'keys.list': ({ n }) => ({ keys: keys.listKeys(n) }),
  'keys.create': async ({ n, p }) => {
    const created = await keys.createKey(n, s(p, 'label'), p.scope as KeyScope, (p.dialect as Dialect | undefined) ?? 'nimbus');
    return { msg: 'Key created; it is shown only this once', ...created };
  },
  'keys.delete': async ({ n, p }) => {
    await keys.deleteKey(n, s(p, 'label'));
    return { msg: 'Key deleted' };
  },
  'keys.rotate': async ({ n }) => ({ msg: 'Admin key replaced; it is shown only this once', key: await keys.rotateAdminKey(n) }),
  openapi: ({ ctx }) => {
    openApiCache ??= JSON.stringify(openApiDocument(VERSION));
    ctx.type = 'application/json';
    ctx.body = openApiCache;
  },

  'share.download': async ({ n, ctx }) => {
    const share = n.store.sharesByToken.get(ctx.state.shareToken as string);
    try {
      if (!share) throw new ApiError('share_not_found', 'This link does not exist or was revoked');
      sendFile(ctx, await n.storage.openFile(share.username, share.folder, share.file), share.file, n.config.bodyIdleMs);
    } catch (err) {
      // A person who opens a dead link in a browser gets a page; API clients keep the JSON error.
      if (!(err instanceof ApiError) || err.status !== 404 || ctx.accepts('json', 'html') !== 'html') throw err;
      sendPage(ctx, 404, 'Link not found', 'This link does not exist or is no longer shared. Ask the person who sent it for a new one.');
    }
  },
  verify: async ({ n, p, ctx, events }) => {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.type = 'text/html';
    // A HEAD (a link checker, a mail scanner) must not use up the one-time link.
    if (ctx.method === 'HEAD') {
      ctx.status = isVerificationValid(n, s(p, 'token')) ? 200 : 404;
      ctx.body = '';
      return;
    }
    try {
      const username = await confirmVerification(n, s(p, 'token'));
      // The dispatcher announces POSTs only; an open UI must see "Verified" without a reload.
      events.publish({ type: 'user.changed', username, folder: null, file: null });
      ctx.body = page('E-mail address confirmed', `Thank you, ${username}. Your e-mail address is verified; you can close this page.`);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
      ctx.status = 404;
      ctx.body = page('Link expired or already used', 'Ask for a new verification e-mail.');
    }
  },
};

function listFiles(n: NimbusContext, ctx: Context, username: string, folder: string | null, pg: Page) {
  // Pre-serialised: the same bytes as `{files: FileEntry[]}`, without re-serialising every entry per request.
  const result = folders.listFilesJson(n, username, folder, pg.offset, pg.limit);
  ctx.set('X-Total-Count', String(result.total));
  ctx.type = 'application/json';
  return result.json;
}

function dash(n: NimbusContext, events: EventHub): DashInfo {
  const totals = n.index.totals();
  return {
    version: VERSION,
    uptime: Math.round((Date.now() - n.startedAt) / 1000),
    users: n.store.users.size,
    roles: n.store.roles.size,
    files: totals.files,
    folders: totals.folders,
    shares: n.store.sharesByToken.size,
    storage: { usedBytes: totals.usedBytes, dir: n.config.storageDir, available: n.index.state !== 'unavailable' },
    index: { state: n.index.state, watcher: n.watcherMode },
    orphans: [...n.orphans].sort(),
    mail: { delivery: n.mailer.delivery },
    eventStreams: events.size,
  };
}
