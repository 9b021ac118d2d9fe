/**
 * What each kind of endpoint answers on success: the schema every row of the endpoint table
 * names (`answer`, shared/endpoints.ts), from which both `ResponseOf<Id>` and the OpenAPI
 * document's response come. JSON answers are schemas (shared/api-schema.ts); an answer that
 * is not JSON (bytes, an event stream, a page) is a `RawAnswer`, its media types described.
 */
import { array, boolean, fieldsOf, integer, object, oneOf, string, type AnySchema } from './api-schema.js';
import {
  AuthOptionsSchema,
  KeyCreatedSchema,
  KeysSchema,
  MeSchema,
  MsgSchema,
  RoleChangedSchema,
  RoleSchema,
  RolesSchema,
  SessionsSchema,
  UserChangedSchema,
  UserSchema,
  UsersSchema,
} from './api-schema-accounts.js';
import { DashInfoSchema, HealthServingSchema, MAIL_DELIVERIES, OpenApiDocumentSchema } from './api-schema-daemon.js';
import {
  FileEntrySchema,
  FileVersionSchema,
  FolderSchema,
  SharedLinkJsonSchema,
  TrashedFields,
  TrashItemSchema,
  TrashRestoredSchema,
  UsageDetailSchema,
} from './api-schema-files.js';
import { ShareInfoSchema, SharesSchema } from './api-schema-shares.js';

/** An answer that is not JSON (or not only): each media type it may come as, with `binary` bytes, `text`, or a JSON schema. */
export interface RawAnswer {
  readonly raw: Readonly<Record<string, 'binary' | 'text' | AnySchema>>;
  readonly description: string;
}

export type Answer = AnySchema | RawAnswer;

export const isRawAnswer = (answer: Answer): answer is RawAnswer => 'raw' in answer;

const msg = fieldsOf(MsgSchema);

export const ANSWERS = {
  msg: MsgSchema,
  user: UserSchema,
  users: UsersSchema,
  userChanged: UserChangedSchema,
  verificationSent: object({ ...msg, delivery: oneOf(MAIL_DELIVERIES, 'Sent by SMTP, or written to the outbox folder') }),
  folders: object({ folders: array(FolderSchema) }),
  files: object({ files: array(FileEntrySchema) }),
  folderChanged: object({ ...msg, folder: FolderSchema }),
  fileChanged: object({ ...msg, file: FileEntrySchema }),
  trashed: object({ ...msg, ...TrashedFields }),
  role: RoleSchema,
  roles: RolesSchema,
  roleChanged: RoleChangedSchema,
  badgeUploaded: object({
    ...msg,
    badge: string('The picture’s path on this daemon (`/badges/uploaded/<id>.png`): a role’s `badge`'),
    url: string('The same as a URL on this daemon’s address'),
  }),
  shareChanged: object({ ...msg, share: ShareInfoSchema }),
  shares: SharesSchema,
  versions: object({ versions: array(FileVersionSchema) }),
  usage: object({ usage: UsageDetailSchema }),
  trash: object({ items: array(TrashItemSchema) }),
  restored: object({ ...msg, restored: TrashRestoredSchema }),
  trashEmptied: object({ ...msg, removed: integer('Items deleted for good') }),
  dash: DashInfoSchema,
  rescanned: object({ ...msg, files: integer('Files in the index once reconciled') }),
  keys: KeysSchema,
  keyCreated: KeyCreatedSchema,
  keyRotated: object({ ...msg, key: string('The new admin key; shown once') }),
  signedIn: object({ user: UserSchema, admin: boolean() }),
  me: MeSchema,
  authOptions: AuthOptionsSchema,
  sessions: SessionsSchema,
  openapi: OpenApiDocumentSchema,
  health: HealthServingSchema,
  uploadedThroughLink: object({ ...msg, name: string('The name the file got (a taken one becomes `name (2).ext`)') }),
  fileBytes: raw({ '*/*': 'binary' }, 'The file’s bytes, with its own Content-Type, Content-Disposition, ETag and Last-Modified'),
  zip: raw({ 'application/zip': 'binary' }, 'A zip, streamed'),
  thumbnail: raw({ 'image/webp': 'binary' }, 'The thumbnail (WebP)'),
  badgeImage: raw({ 'image/png': 'binary', 'image/jpeg': 'binary', 'image/webp': 'binary' }, 'An uploaded badge picture'),
  events: raw({ 'text/event-stream': 'text' }, 'Server-Sent Events: each `event: <type>` with `data:` a ChangeEvent'),
  page: raw({ 'text/html': 'text' }, 'A page for a person'),
  shareLink: raw(
    { '*/*': 'binary', 'application/json': SharedLinkJsonSchema, 'text/html': 'text' },
    'The file’s bytes (a preview page for a browser); a folder link’s listing as JSON (its page for a browser), a file in it or a zip; an upload link’s page ({upload: true} as JSON)',
  ),
  seeOther: raw({}, 'See other: the link again, with the cookie that opens it'),
} as const;

function raw(media: RawAnswer['raw'], description: string): RawAnswer {
  return { raw: media, description };
}
