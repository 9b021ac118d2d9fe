/**
 * A share link's options as the explorer shows and edits them (docs/sharing.md): the expiry as
 * a day picked in a date field, the download limit as typed, what an edit sends, and whether the
 * link's address only works on this computer.
 */
import type { CallParams } from '../../shared/endpoints';
import type { ShareInfo, ShareKind } from '../../shared/types';
import { folderName, parentFolder } from './places';

/** Whether a link's host is this computer itself (127.0.0.0/8, localhost, [::1]): nobody else can open it. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]') return true;
  // The URL parser writes every IPv4 form (127.1, 0x7f.0.0.1) as four decimals, and an IPv4-mapped one as [::ffff:7fxx:xxxx].
  return /^127\.\d+\.\d+\.\d+$/.test(host) || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A date field's value (YYYY-MM-DD) for a day of this computer's calendar. */
export function dayValue(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The day an expiry falls on here, as a date field's value; '' for none. */
export function expiryDay(expiresAt: string | null): string {
  if (!expiresAt) return '';
  const date = new Date(expiresAt);
  return Number.isNaN(date.getTime()) ? '' : dayValue(date);
}

/** The instant a picked day means: the link stops working when that day begins, here. Null for no day or not a date. */
export function dayStart(day: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return date.getDate() === Number(match[3]) ? date : null;
}

/** The first day a link may be set to expire on: tomorrow (today has begun already). */
export function firstExpiryDay(now: Date = new Date()): string {
  return dayValue(new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1));
}

/** A download limit as typed: 0 for none (empty or 0), null when it is not a whole number the daemon takes. */
export function parseLimit(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return 0;
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : null;
}

/** What the owner typed in the options form. */
export interface OptionsForm {
  /** A date field's value; '' for never. */
  day: string;
  /** The download limit as typed; '' or 0 for none. */
  limit: string;
  /** A new password; '' keeps the link's as it is. */
  password: string;
}

/** The form as a link's options fill it (never its password: the daemon has only a hash). */
export function formOf(share: Pick<ShareInfo, 'expiresAt' | 'maxDownloads'>): OptionsForm {
  return { day: expiryDay(share.expiresAt), limit: share.maxDownloads ? String(share.maxDownloads) : '', password: '' };
}

export type OptionsProblem = 'expiryPast' | 'limitInvalid';

export type ShareEdit = Pick<CallParams<'shares.edit'>, 'expires' | 'maxDownloads' | 'password'>;

/**
 * The edit the form asks for: only what differs from the link's options (an expiry left as it
 * was is not sent again, so one set by the API to the minute keeps its minute), or the problem
 * with what was typed. An empty edit: nothing to save.
 */
export function editOf(
  share: Pick<ShareInfo, 'expiresAt' | 'maxDownloads'>,
  form: OptionsForm,
  now: Date = new Date(),
): { edit: ShareEdit } | { problem: OptionsProblem } {
  const edit: ShareEdit = {};
  if (form.day !== expiryDay(share.expiresAt)) {
    if (form.day === '') edit.expires = 'never';
    else {
      const start = dayStart(form.day);
      if (!start || start.getTime() <= now.getTime()) return { problem: 'expiryPast' };
      edit.expires = start.toISOString();
    }
  }
  const limit = parseLimit(form.limit);
  if (limit === null) return { problem: 'limitInvalid' };
  if (limit !== (share.maxDownloads ?? 0)) edit.maxDownloads = limit;
  if (form.password !== '') edit.password = form.password;
  return { edit };
}

/** One link as the explorer acts on it: what it shares (a file in `folder`, or the folder `folder` itself) and its address. */
export type LinkTarget = Pick<ShareInfo, 'kind' | 'url' | 'folder' | 'file'>;

/** What a link is called: its file's name, or its folder's last name. */
export const linkName = (link: Pick<ShareInfo, 'kind' | 'folder' | 'file'>): string =>
  link.kind === 'file' ? link.file : folderName(link.folder ?? '');

/** The folder a link's row sits in (null: the root): its file's folder, or the folder above the shared one. */
export const linkPlace = (link: Pick<ShareInfo, 'kind' | 'folder'>): string | null =>
  link.kind === 'file' ? link.folder : parentFolder(link.folder ?? '');

/** A folder's own links: its folder link and its upload link, each when it has one. */
export type FolderLinks = Partial<Record<Exclude<ShareKind, 'file'>, ShareInfo>>;

/** The folder and upload links of a user's links, by the path of their folder. */
export function folderLinksOf(shares: readonly ShareInfo[]): Map<string, FolderLinks> {
  const byFolder = new Map<string, FolderLinks>();
  for (const share of shares) {
    if (share.kind === 'file' || share.folder === null) continue;
    byFolder.set(share.folder, { ...byFolder.get(share.folder), [share.kind]: share });
  }
  return byFolder;
}
