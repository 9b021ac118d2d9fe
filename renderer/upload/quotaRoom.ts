/**
 * The quota in the person's words (issue 29): "“big backup.bin” needs 4.8 MiB; 4.2 MiB free."
 * Said before an upload starts, when the files' sizes (always known in a browser) do not fit
 * what the user has left, and again, in the same words, when the daemon refuses one anyway
 * (507, with its own numbers: another window uploaded meanwhile).
 */
import i18next from 'i18next';
import type { UsageDetail } from '../../shared/types';
import type { QuotaRoom } from '../api/apiError';
import { formatBytes } from '../lib/format';
import type { UploadItem } from './uploadItem';

/** One file by its name, or a batch by its count. */
export type Needing = { name: string } | { count: number };

/** "“a.bin” needs 4.8 MiB; 4.2 MiB free." or "These 3 files need 12 MiB; 4.2 MiB free.", sizes as the UI writes them. */
export function roomText(what: Needing, needed: number, available: number): string {
  const sizes = { needed: formatBytes(needed), free: formatBytes(Math.max(0, available)) };
  return 'name' in what
    ? i18next.t('upload:quota.one', { name: what.name, ...sizes })
    : i18next.t('upload:quota.many', { count: what.count, ...sizes });
}

/**
 * What a new upload may still use, or null without a limit: the quota less the usage, plus the
 * kept versions (they give way to an upload: docs/versions.md), less what the queue has yet to
 * land. Never refusing up front what the daemon would take matters more than refusing all it would not.
 */
export function freeBytes(usage: Pick<UsageDetail, 'usedBytes' | 'maxBytes' | 'versionBytes'>, pendingBytes: number): number | null {
  if (usage.maxBytes < 0) return null;
  return Math.max(0, usage.maxBytes - usage.usedBytes + usage.versionBytes - pendingBytes);
}

/** The bytes the queue is still to land for `username`: what waits or is on its way (a replacement frees its old bytes, so it is left out). */
export function pendingBytes(items: readonly UploadItem[], username: string): number {
  return items
    .filter((item) => item.username === username && !item.overwrite && (item.status === 'queued' || item.status === 'uploading'))
    .reduce((sum, item) => sum + item.size, 0);
}

/** Why a batch of new files cannot start, or null when it fits (or there is no limit). */
export function upFrontRefusal(files: readonly { name: string; size: number }[], free: number | null): string | null {
  const needed = files.reduce((sum, file) => sum + file.size, 0);
  if (free === null || files.length === 0 || needed <= free) return null;
  return roomText(files.length === 1 ? { name: files[0].name } : { count: files.length }, needed, free);
}

/** The daemon's 507 for one upload in the same words, or null when it did not say what was free. */
export function refusedRoomText(name: string, size: number, room: QuotaRoom | null): string | null {
  if (room?.available == null) return null;
  return roomText({ name }, room.needed ?? size, room.available);
}
