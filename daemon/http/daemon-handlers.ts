/** The handlers of the daemon itself: its dashboard, rescan, event stream, OpenAPI document and health. */
import type { ResponseOf } from '../../shared/endpoints.js';
import type { DashInfo, JsonText } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import { checkHealth } from '../services/health.js';
import { standsAsAuthorized } from '../services/standing.js';
import { VERSION } from '../version.js';
import { countUnaddressable } from '../storage/index-tree.js';
import type { EventHub } from './events.js';
import { jsonText, signedIn, type HandlerTable } from './handler-support.js';
import { openApiDocument } from './openapi.js';

type DaemonRow = 'dash.get' | 'dash.rescan' | 'events' | 'openapi' | 'health.get';

let openApiCache: JsonText<ResponseOf<'openapi'>> | null = null;

export const DAEMON_HANDLERS: HandlerTable<DaemonRow> = {
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
  openapi: () => (openApiCache ??= jsonText(openApiDocument(VERSION))),
  'health.get': async ({ nimbus, ctx }) => {
    const health = await checkHealth(nimbus);
    if (health.status !== 'unavailable') return health;
    // Not an error of the request ({error, code}): the answer a balancer reads, with its own status.
    ctx.status = 503;
    ctx.body = health;
  },
};

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
    unaddressable: countUnaddressable(nimbus.index.users.values()),
    orphans: [...nimbus.orphans].sort(),
    mail: { delivery: nimbus.mailer.delivery },
    eventStreams: events.size,
  };
}
