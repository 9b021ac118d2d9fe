/** The daemon's own answers (its dashboard, health, change events, errors), as the API sends them (shared/api-schema.ts). */
import { array, boolean, integer, literal, map, named, nullable, object, oneOf, optional, string, union } from './api-schema.js';
import { ERROR_STATUS, type ErrorCode } from './errors.js';

export const INDEX_STATES = ['scanning', 'ready', 'unavailable'] as const;
/** How the storage directory is followed ('inotify': the native watch is on). */
export const WATCHER_MODES = ['inotify', 'polling', 'reconcile-only', 'starting', 'none'] as const;
export const MAIL_DELIVERIES = ['smtp', 'outbox'] as const;

export const DashInfoSchema = named(
  'DashInfo',
  object({
    version: string(),
    uptime: integer('Seconds since the daemon started'),
    users: integer(),
    roles: integer(),
    files: integer(),
    folders: integer(),
    shares: integer(),
    storage: object({ usedBytes: integer(), dir: string(), available: boolean() }),
    index: object({ state: oneOf(INDEX_STATES), watcher: oneOf(WATCHER_MODES) }),
    unaddressable: integer(
      'Entries found in the storage folder past the tree’s limits (deeper than 64 levels, or a folder path over 4,096 bytes), not indexed (docs/tree.md)',
    ),
    orphans: array(string()),
    mail: object({ delivery: oneOf(MAIL_DELIVERIES) }),
    eventStreams: integer('Clients subscribed to GET /api/events now'),
  }),
);

const checks = map(string(), 'Each probe’s result by name (`database`, `bucket`, `storage`): "ok" or a short reason');
/** GET /api/health (docs/cluster.md, "Health"): 200 ok or degraded (only the bucket fails), else 503 unavailable. */
export const HealthServingSchema = named(
  'Health',
  union([object({ status: literal('ok') }), object({ status: literal('degraded'), checks })]),
);
export const HealthUnavailableSchema = named('HealthUnavailable', object({ status: literal('unavailable'), checks }));

/** Live change events streamed on GET /api/events (Server-Sent Events, `event: <type>`): the one list the OpenAPI document and the UI read. */
export const CHANGE_EVENT_TYPES = [
  'file.added',
  'file.changed',
  'file.removed',
  'folder.added',
  'folder.removed',
  'folder.moved',
  'user.changed',
  'user.removed',
  'role.changed',
  'share.changed',
  'trash.changed',
  'index.state',
] as const;

export const ChangeEventSchema = named(
  'ChangeEvent',
  object({
    type: oneOf(CHANGE_EVENT_TYPES),
    username: nullable(string()),
    folder: nullable(string()),
    file: nullable(string()),
    from: optional(string('`folder.moved` only: the folder’s old path (`folder` is its new one)')),
  }),
);

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
/** Every error's body, in both dialects (daemon/http/error-handler.ts). */
export const ErrorBodySchema = named(
  'Error',
  object({
    error: string('What went wrong, in words (no message for `internal`)'),
    code: oneOf(ERROR_CODES, 'What went wrong, for a program'),
    needed: optional(integer('`quota_exceeded`: the bytes the request needed, when its size was known')),
    available: optional(integer('`quota_exceeded`: the bytes left of the quota (0 when over it)')),
  }),
);

/** The OpenAPI 3.1 document GET /api/openapi.json answers (daemon/http/openapi.ts): only its top is described. */
export const OpenApiDocumentSchema = object({
  openapi: string(),
  info: object({ title: string(), version: string(), description: string() }),
  servers: array(object({ url: string() })),
  components: map(map(object({}))),
  paths: map(map(object({}))),
});
