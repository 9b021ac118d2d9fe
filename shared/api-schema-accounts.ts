/** The records of users, roles, keys, sessions and who is calling, as the API answers them (shared/api-schema.ts). */
import { array, boolean, dateTime, fieldsOf, integer, named, nullable, object, oneOf, string } from './api-schema.js';
import { MAIL_DELIVERIES } from './api-schema-daemon.js';
import { UsageSchema } from './api-schema-files.js';

/** The `msg` every changing endpoint answers with. */
export const MsgSchema = named('Msg', object({ msg: string('What was done, in words') }));

export const UserSchema = named(
  'User',
  object(
    {
      username: string(),
      email: string(),
      role: string(),
      emailVerified: boolean(),
      createdAt: dateTime(),
      usage: UsageSchema,
    },
    'A user; never carries a password hash, token or key',
  ),
);

export const RoleSchema = named(
  'Role',
  object({
    name: string(),
    maxStorage: integer('MB (MiB); -1 means unlimited'),
    badge: string(),
    builtIn: boolean(),
  }),
);

/** `admin` and `read`: machine keys (made by an admin, acting as no user); `write` and `read`: personal keys (docs/accounts.md). */
export const KEY_SCOPES = ['admin', 'read', 'write'] as const;
/** The response shapes a key gets: `nimbus` (these records) or `daneecloud` (DaneeCloud's bodies: daemon/http/dialect.ts). */
export const DIALECTS = ['nimbus', 'daneecloud'] as const;

export const ApiKeyInfoSchema = named(
  'ApiKeyInfo',
  object({
    label: string(),
    scope: oneOf(KEY_SCOPES),
    createdAt: dateTime(),
    builtIn: boolean('The built-in admin key kept in the OS keychain; cannot be deleted through the API'),
    dialect: oneOf(DIALECTS, 'The response shapes this key gets; the admin key’s is NIMBUS_ADMIN_DIALECT'),
    username: nullable(string(), 'The user a personal key acts as; null for the admin key and machine keys'),
  }),
);

/** keys.create: the key's record, and the key itself (shown this once). */
export const KeyCreatedSchema = object({ ...fieldsOf(MsgSchema), ...fieldsOf(ApiKeyInfoSchema), key: string('The key; shown once') });

export const MeSchema = named(
  'Me',
  object(
    {
      user: nullable(UserSchema, 'null for the admin key and machine keys, which act as no user'),
      admin: boolean(),
      canWrite: boolean('May change things: false for a `read` key, whose every changing request is 403 `insufficient_scope`'),
    },
    'Who is calling: their user record, whether they are an admin, and whether they may change things',
  ),
);

export const AuthOptionsSchema = named(
  'AuthOptions',
  object(
    {
      registration: oneOf(['open', 'closed']),
      requireVerified: boolean('Uploads and shares of a non-admin wait until their e-mail address is verified'),
      mailDelivery: oneOf(
        MAIL_DELIVERIES,
        'How mail leaves: `smtp` (NIMBUS_SMTP_URL), or `outbox`: written as files on the server, where only its administrator reads them',
      ),
    },
    'What the sign-in page may offer and say, from NIMBUS_REGISTRATION, NIMBUS_REQUIRE_VERIFIED and NIMBUS_SMTP_URL',
  ),
);

export const SessionInfoSchema = named(
  'SessionInfo',
  object(
    {
      id: string('The public id (hex) that names it in `auth.sessions.delete`'),
      device: string('From the User-Agent at sign-in (shortened), e.g. "Firefox on Linux"'),
      address: string('The client’s address at sign-in'),
      createdAt: dateTime(),
      lastUsedAt: dateTime(),
      current: boolean('The session of this very request'),
    },
    'One sign-in of the caller; never carries the cookie or its hash',
  ),
);

/** `{msg, user}`: what creating, editing, or giving a role to a user answers. */
export const UserChangedSchema = object({ ...fieldsOf(MsgSchema), user: UserSchema });
export const RoleChangedSchema = object({ ...fieldsOf(MsgSchema), role: RoleSchema });
export const UsersSchema = array(UserSchema);
export const RolesSchema = array(RoleSchema);
export const KeysSchema = object({ keys: array(ApiKeyInfoSchema) });
export const SessionsSchema = object({ sessions: array(SessionInfoSchema) });
