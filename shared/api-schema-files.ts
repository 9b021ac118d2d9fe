/** The records of files, folders, versions, the trash and usage, as the API answers them (shared/api-schema.ts). */
import { array, boolean, dateTime, fieldsOf, integer, literal, named, nullable, object, oneOf, string, union } from './api-schema.js';

export const UsageSchema = named(
  'Usage',
  object({
    usedBytes: integer(),
    maxBytes: integer('-1 when the role is unlimited'),
    overQuota: boolean(),
  }),
);

/** The kinds of files the usage charts tell apart (by MIME type: docs/explorer.md). */
export const FILE_KINDS = ['images', 'documents', 'media', 'other'] as const;

export const UsageDetailSchema = named(
  'UsageDetail',
  object(
    {
      ...fieldsOf(UsageSchema),
      fileBytes: integer('Bytes in the storage folder'),
      trashBytes: integer('Bytes in the trash (part of `usedBytes`)'),
      versionBytes: integer('Bytes of files’ kept versions (part of `usedBytes`; docs/versions.md)'),
      byKind: object(
        { images: integer(), documents: integer(), media: integer(), other: integer() },
        '`fileBytes` by kind (by MIME type: docs/explorer.md)',
      ),
      fileCount: integer(),
    },
    'usage.get: where a user’s quota goes. `usedBytes` = files + kept versions + trash, what the quota compares',
  ),
);

/** The `trashId` a delete answers in the nimbus dialect besides `msg` (DaneeCloud's dialect answers `{msg}` as before). */
export const TrashedFields = {
  trashId: nullable(string(), 'The trash item the delete made, for an Undo (null with `permanent=true`)'),
};

export const TrashItemSchema = named(
  'TrashItem',
  object({
    id: string(),
    kind: oneOf(['file', 'folder']),
    name: string(),
    folder: nullable(string(), 'Where a file was (null: the root); null for a folder'),
    size: integer('Bytes (a folder: all its files)'),
    fileCount: integer('A folder’s number of files; 1 for a file'),
    deletedAt: dateTime(),
    purgeAt: dateTime('When it is deleted for good (deletedAt + NIMBUS_TRASH_DAYS)'),
  }),
);

export const TrashRestoredSchema = named(
  'TrashRestored',
  object(
    { kind: oneOf(['file', 'folder']), name: string(), folder: nullable(string()) },
    'Where trash.restore put an item back (its name may have gained " (restored)")',
  ),
);

export const FolderSchema = named(
  'Folder',
  object(
    {
      name: string(),
      path: string('The folder’s path from the user’s root (`photos/2024`); its name alone at the root'),
      fileCount: integer(),
      folderCount: integer(),
      sizeBytes: integer(),
      modifiedAt: dateTime(),
    },
    'A folder; `fileCount`, `folderCount` and `sizeBytes` are of its whole subtree',
  ),
);

export const FileEntrySchema = named(
  'FileEntry',
  object({
    name: string(),
    folder: nullable(string(), 'The folder’s path; null at the user’s root'),
    size: integer(),
    modifiedAt: dateTime(),
    mimeType: string(),
    shared: boolean(),
    shareUrl: nullable(string()),
  }),
);

export const FileVersionSchema = named(
  'FileVersion',
  object(
    {
      id: string(),
      size: integer(),
      modifiedAt: dateTime('When that content was last modified'),
      keptAt: dateTime('When it was replaced, so kept'),
    },
    'A file’s earlier content, kept when an upload replaced it (docs/versions.md)',
  ),
);

/** A shared folder's listing (GET /s/{token} of a folder link, for a client that asks for JSON). */
export const LinkListingSchema = named(
  'LinkListing',
  object({
    name: string('The shared folder’s own name'),
    path: string('Where in it (empty: its top)'),
    folders: array(object({ name: string() })),
    files: array(object({ name: string(), size: integer(), modifiedAt: dateTime(), mimeType: string() })),
  }),
);

/** GET /s/{token} of an upload link, for a client that asks for JSON. */
export const UploadLinkSchema = named('UploadLink', object({ upload: literal(true) }));

export const SharedLinkJsonSchema = union([LinkListingSchema, UploadLinkSchema]);
