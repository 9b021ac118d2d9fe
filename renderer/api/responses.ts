import type { ApiKeyInfo, DashInfo, FileEntry, Folder, MailDelivery, Role, User } from '../../shared/types';

interface Msg {
  msg: string;
}

/** What each JSON endpoint of the table answers on success (docs/architecture.md#the-endpoint-table). */
export interface ResponseMap {
  'user.get': User;
  'user.all': User[];
  'user.create': Msg & { user: User };
  'user.delete': Msg;
  'user.edit': Msg & { user: User };
  'user.verify': Msg & { delivery: MailDelivery };
  'user.role': Msg & { user: User };
  'folders.list': { folders: Folder[] };
  'folders.files': { files: FileEntry[] };
  'folders.create': Msg & { folder: Folder };
  'folders.delete': Msg;
  'folders.files.rename': Msg & { file: FileEntry };
  'folders.files.delete': Msg;
  'role.get': Role;
  'role.all': Role[];
  'role.create': Msg & { role: Role };
  'role.delete': Msg;
  'role.edit': Msg & { role: Role };
  'files.list': { files: FileEntry[] };
  'files.delete': Msg;
  'files.rename': Msg & { file: FileEntry };
  'files.share': Msg & { file: FileEntry };
  'files.noshare': Msg & { file: FileEntry };
  'files.upload': Msg & { file: FileEntry };
  'dash.get': DashInfo;
  'dash.rescan': Msg;
  'keys.list': ApiKeyInfo[];
}

export type JsonEndpointId = keyof ResponseMap;
