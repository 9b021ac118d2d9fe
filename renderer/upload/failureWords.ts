/**
 * The words of a failed upload (UploadPanel shows them): a short headline, and what follows it.
 * The detail is in the UI's language; the headline here is English (the panel has its own).
 */
import i18next from 'i18next';
import { ApiError, errorMessage } from '../api/client';
import { refusedRoomText } from './quotaRoom';
import type { UploadItem } from './UploadQueue';

/**
 * What follows a failure's headline (UploadPanel): for a taken name what to do about it, for the
 * quota what was needed and what is free; else the error as errorText words it. Never the
 * headline again ('' when the daemon said no more than it: "Not enough storage space" once).
 */
export function failureDetail(item: UploadItem, error: unknown): string {
  if (!(error instanceof ApiError)) return errorMessage(error);
  if (error.code === 'file_exists') return i18next.t('upload:replaceHint');
  if (error.status === 507 && error.code === 'quota_exceeded') return refusedRoomText(item.name, item.size, error.room) ?? '';
  return errorMessage(error);
}

/** A short headline for a failure, ahead of the daemon's own message (English; UploadPanel says it in the UI's language). */
export function failureHeadline(item: UploadItem): string {
  switch (item.errorStatus) {
    case 507:
      return 'Not enough storage space';
    case 409:
      return 'A file with this name already exists';
    case 413:
      return 'The file is too large';
    case 0:
      return item.badName ? 'Invalid file name' : 'Upload failed';
    default:
      return 'Upload failed';
  }
}
