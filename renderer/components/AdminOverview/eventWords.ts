import type { TFunction } from 'i18next';
import type { ChangeEvent } from '../../../shared/types';

/** One event of the stream as a sentence: "ana added report.pdf", "ana removed the folder Photos". */
export function eventInWords(event: ChangeEvent, t: TFunction): string {
  const user = event.username ?? t('overview:someone');
  const file = event.file ?? '';
  const folder = event.folder ?? '';
  const inFolder = event.folder !== null && event.file !== null;
  switch (event.type) {
    case 'file.added':
      return inFolder ? t('overview:event.fileAddedIn', { user, file, folder }) : t('overview:event.fileAdded', { user, file });
    case 'file.changed':
      return inFolder ? t('overview:event.fileChangedIn', { user, file, folder }) : t('overview:event.fileChanged', { user, file });
    case 'file.removed':
      return inFolder ? t('overview:event.fileRemovedIn', { user, file, folder }) : t('overview:event.fileRemoved', { user, file });
    case 'folder.added':
      return t('overview:event.folderAdded', { user, folder });
    case 'folder.removed':
      return t('overview:event.folderRemoved', { user, folder });
    case 'folder.moved':
      return t('overview:event.folderMoved', { user, folder, from: event.from ?? '' });
    case 'share.changed':
      return t('overview:event.shareChanged', { user, file });
    case 'trash.changed':
      return t('overview:event.trashChanged', { user });
    case 'user.changed':
      return t('overview:event.userChanged', { user });
    case 'user.removed':
      return t('overview:event.userRemoved', { user });
    case 'role.changed':
      return t('overview:event.roleChanged');
    default:
      return t('overview:event.other', { type: event.type });
  }
}
