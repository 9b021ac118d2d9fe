/** The handlers of a file's versions (docs/versions.md): the list, one version's bytes, and a restore. */
import { restoreVersion, openVersion, requireVersion } from '../services/version-actions.js';
import { listVersions } from '../services/versions.js';
import { sendFile } from './download.js';
import type { HandlerTable } from './handler-support.js';

export const VERSION_HANDLERS: HandlerTable<'files.versions' | 'files.versions.restore' | 'files.versions.download'> = {
  'files.versions': ({ nimbus, params }) => {
    nimbus.storage.requireFile(params.username, params.folder ?? null, params.file);
    return { versions: listVersions(nimbus, params.username, params.folder ?? null, params.file) };
  },
  'files.versions.restore': async ({ nimbus, params }) => ({
    msg: 'Version restored',
    file: await restoreVersion(nimbus, params.username, params.folder ?? null, params.file, params.id),
  }),
  'files.versions.download': async ({ nimbus, params, ctx }) => {
    const version = requireVersion(nimbus, params.username, params.folder ?? null, params.file, params.id);
    await sendFile(ctx, await openVersion(nimbus, version), params.file, nimbus.config.bodyIdleMs, {});
  },
};
