/**
 * Why a restore failed, in the person's words (docs/versions.md): a full quota in the units the
 * UI shows (the daemon's own message counts "MB"), a WebDAV lock, a version no longer kept; any
 * other failure as errorMessage words it.
 */
import i18next from 'i18next';
import type { FileVersion, UsageDetail } from '../../../shared/types';
import { ApiError, errorMessage } from '../../api/client';
import { formatBytes } from '../../lib/format';

/** A refused restore for want of space: what the version needs against what is used of the quota, and what the trash holds. */
export function quotaText(version: FileVersion, usage: UsageDetail | null): string {
  const size = formatBytes(version.size);
  if (!usage || usage.maxBytes < 0) return i18next.t('versions:error.quotaShort', { size });
  const text = i18next.t('versions:error.quota', { size, used: formatBytes(usage.usedBytes), max: formatBytes(usage.maxBytes) });
  if (usage.trashBytes <= 0) return text;
  return `${text} ${i18next.t('versions:error.quotaTrash', { trash: formatBytes(usage.trashBytes) })}`;
}

/** The detail of a failed restore's toast; `usage` is asked for only when the quota refused it. */
export async function restoreFailure(error: unknown, version: FileVersion, usage: () => Promise<UsageDetail>): Promise<string> {
  if (!(error instanceof ApiError)) return errorMessage(error);
  if (error.status === 507 || error.code === 'quota_exceeded') return quotaText(version, await usage().catch(() => null));
  if (error.status === 423 || error.code === 'locked') return i18next.t('errors:code.locked');
  if (error.code === 'version_not_found') return i18next.t('versions:error.gone');
  return errorMessage(error);
}
