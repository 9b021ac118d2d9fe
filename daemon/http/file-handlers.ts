/** The handlers of folders, files, usage and the trash. */
import type { Context } from 'koa';
import type { EndpointId } from '../../shared/endpoints.js';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import * as files from '../services/files.js';
import { copyFolder } from '../services/folder-copy.js';
import * as folders from '../services/folders.js';
import type { Caller } from '../services/keys.js';
import { getUsage } from '../services/records.js';
import { searchFilesJson } from '../services/search.js';
import { shareFile, unshareFile } from '../services/shares.js';
import { mayStillHave } from '../services/standing.js';
import { openThumbnail } from '../services/thumbnails.js';
import * as transfers from '../services/transfers.js';
import * as trash from '../services/trash.js';
import { planZip } from '../services/zip-plan.js';
import { sendFile } from './download.js';
import { paged, signedIn, type HandlerTable } from './handler-support.js';
import type { Page } from './params.js';
import { answerHeader } from './response.js';
import { sendThumbnail } from './thumbnail-response.js';
import { withUploadBody } from './upload-body.js';
import { sendZip } from './zip-response.js';

type FileRow = Exclude<
  Extract<EndpointId, `folders.${string}` | `files.${string}` | `usage.${string}` | `trash.${string}`>,
  'folders.share' | 'folders.noshare' | 'files.versions' | 'files.versions.restore' | 'files.versions.download'
>;

/**
 * NIMBUS_REQUIRE_VERIFIED=1: a user who is not an admin and whose e-mail is not verified may
 * not upload or share (403 `email_not_verified`); an admin acting on their files may.
 */
export function assertMayPublish(nimbus: NimbusContext, caller: Caller | null): void {
  if (!nimbus.config.requireVerified || !caller || caller.admin || caller.username === null) return;
  if (nimbus.store.users.get(caller.username)?.emailVerified !== true)
    throw new ApiError('email_not_verified', 'Verify your e-mail address first (Settings → Verify e-mail)');
}

export const FILE_HANDLERS: HandlerTable<FileRow> = {
  'folders.list': ({ nimbus, params, ctx, page: pg }) => ({
    folders: paged(ctx, folders.listFolders(nimbus, params.username, params.folder ?? null), pg),
  }),
  'folders.files': ({ nimbus, params, ctx, page: pg }) => listFiles(nimbus, ctx, params.username, params.folder, pg),
  'folders.create': async ({ nimbus, params }) => ({
    msg: 'Folder created',
    folder: await folders.createFolder(nimbus, params.username, params.folder, params.parents ?? false),
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
  'files.list': ({ nimbus, params, ctx, page: pg }) => listFiles(nimbus, ctx, params.username, params.folder ?? null, pg),
  'files.search': ({ nimbus, params, ctx, page: pg }) => {
    const result = searchFilesJson(nimbus, params.username, params.q, pg.offset, pg.limit, params.folder ?? null);
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
      file: await shareFile(nimbus, params.username, params.folder ?? null, params.file, params),
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
  'folders.move': async ({ nimbus, params }) => ({
    msg: 'Folder moved',
    folder: await transfers.moveFolder(nimbus, params.username, params.folder, params.to ?? null),
  }),
  'folders.copy': async ({ nimbus, params }) => ({
    msg: 'Folder copied',
    folder: await copyFolder(nimbus, params.username, params.folder, params.to ?? null),
  }),
  'folders.download': ({ nimbus, params, ctx }) =>
    sendZip(ctx, nimbus, planZip(nimbus, params.username, params.folder ?? null, params.files ?? null)),
  'usage.get': ({ nimbus, params }) => ({ usage: getUsage(nimbus, params.username) }),
  'trash.list': ({ nimbus, params, ctx, page: pg }) => ({ items: paged(ctx, trash.listTrash(nimbus, params.username), pg) }),
  'trash.restore': async ({ nimbus, params }) => ({
    msg: 'Restored from the trash',
    restored: await trash.restoreItem(nimbus, params.username, params.id, params.rename === true, params.suffix),
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
};

function listFiles(nimbus: NimbusContext, ctx: Context, username: string, folder: string | null, pg: Page) {
  // Pre-serialised: the same bytes as `{files: FileEntry[]}`, without re-serialising every entry per request.
  const result = folders.listFilesJson(nimbus, username, folder, pg.offset, pg.limit);
  answerHeader(ctx, 'X-Total-Count', String(result.total));
  return result.json;
}
