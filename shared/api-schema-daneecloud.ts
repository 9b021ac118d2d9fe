/**
 * What a key of the `daneecloud` dialect gets instead of the nimbus records (daemon/http/dialect.ts):
 * DaneeCloud's own bodies, kept exactly as its clients and bot read them. The OpenAPI document
 * shows each beside the nimbus answer (`x-dialects` of the success response).
 */
import { array, boolean, named, number, object, string } from './api-schema.js';
import { MsgSchema } from './api-schema-accounts.js';

export const DaneeCloudUserSchema = named(
  'DaneeCloudUser',
  object(
    {
      username: string(),
      email: string(),
      usedStorage: number('Used storage in MB (MiB, as role quotas), two decimals'),
      isVerified: boolean(),
      files: array(string(), 'Names of the files at the user’s root'),
      folders: array(string(), 'Names of the user’s folders'),
      sharedFiles: array(string(), 'Names of the user’s shared files; `folder/file` for one inside a folder'),
      role: string('The role’s name'),
      createdAt: string(),
    },
    'A user as DaneeCloud’s `users` model answered it (without its password hash, verify code and IP)',
  ),
);

export const DaneeCloudDashSchema = named(
  'DaneeCloudDash',
  object(
    {
      cpuUsage: string('Machine CPU use since the previous call, e.g. "12.34 %"'),
      ramUsage: string('The daemon’s resident memory, e.g. "120 MB"'),
      uptime: string('e.g. "5 minutes", "2 hours", "3 days"'),
      version: string('e.g. "v0.1.0"'),
      developer: string(),
      license: string(),
    },
    'GET /api/dash as DaneeCloud formatted it: display strings, not numbers',
  ),
);

/** The answers of the rows the dialect changes, by what they become. */
export const DANEECLOUD = {
  user: DaneeCloudUserSchema,
  users: array(DaneeCloudUserSchema),
  userChanged: object({ msg: string(), user: DaneeCloudUserSchema }),
  folderNames: object({ folders: array(string()) }),
  fileNames: object({ files: array(string()) }),
  dash: DaneeCloudDashSchema,
  /** A delete answered `{msg}`: the trash item's id is Nimbus's own (for an Undo). */
  msg: MsgSchema,
};
