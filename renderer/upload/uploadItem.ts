/**
 * What the upload queue holds: a file to send (UploadSource), where it goes (UploadTarget), and
 * its item in the list, with its progress and why it failed (UploadItem). UploadQueue.ts runs them.
 */
import i18next from 'i18next';
import { checkFileName } from '../../shared/validation';
import { ruleText } from '../api/errorText';

export type UploadStatus = 'queued' | 'uploading' | 'done' | 'failed' | 'cancelled';

export interface UploadTarget {
  username: string;
  folder: string | null;
  name: string;
  overwrite: boolean;
}

export interface UploadItem extends UploadTarget {
  id: string;
  size: number;
  loaded: number;
  status: UploadStatus;
  /** Why it failed, in the UI's language (the daemon's message worded by errorText); '' when the headline says it all. */
  error: string | null;
  /** Refused for its name (or a folder's) before anything was sent. */
  badName: boolean;
  /** HTTP status of the failure; 0 when the daemon was unreachable or the name was refused locally. */
  errorStatus: number | null;
  /** A kept-both copy: the taken name it goes beside (its free name is found again on a 409); else null. */
  besides: string | null;
}

export interface UploadSource {
  name: string;
  body: Blob;
  /** Its own folder (a folder upload's files go to many); else the batch's destination. */
  folder?: string | null;
  /** Replace the file of that name (a folder upload's answer to its conflicts). */
  overwrite?: boolean;
  /** Why it is not sent at all (a folder upload's bad folder name): failed at once with this message, not reported to `onFailed`. */
  refused?: string;
  /** Kept both: the taken name this copy goes beside (`name` is the free one chosen for it). */
  besides?: string;
  /** `refused` is about a name (its own or a folder's), not a folder the daemon would not make. */
  badName?: boolean;
}

let nextId = 0;

/**
 * The item of a file added for `username` to `folder` (or to its own): queued, or failed at
 * once when the caller refused it or its name is not one the daemon would take.
 */
export function newUploadItem(source: UploadSource, username: string, folder: string | null): UploadItem {
  const id = `upload-${++nextId}`;
  const checked = checkFileName(source.name);
  const base: UploadItem = {
    id,
    username,
    folder: source.folder === undefined ? folder : source.folder,
    name: checked.ok ? checked.value : source.name,
    overwrite: source.overwrite ?? false,
    size: source.body.size,
    loaded: 0,
    status: 'queued',
    error: null,
    errorStatus: null,
    besides: source.besides ?? null,
    badName: source.badName ?? !checked.ok,
  };
  const refusal = source.refused ?? (checked.ok ? null : i18next.t('errors:invalidName', { rule: ruleText(checked.message) }));
  return refusal === null ? base : { ...base, status: 'failed', error: refusal, errorStatus: 0 };
}
