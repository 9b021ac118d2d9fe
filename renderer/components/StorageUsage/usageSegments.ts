import type { FileKind, UsageDetail } from '../../../shared/types';

export const FILE_KINDS: readonly FileKind[] = ['images', 'documents', 'media', 'other'];

export type QuotaPart = 'files' | 'versions' | 'trash' | 'free';

export interface Segment<Name extends string> {
  name: Name;
  bytes: number;
  /** Share of the bar, 0–1. */
  fraction: number;
}

export interface QuotaPicture {
  segments: Segment<QuotaPart>[];
  /** Where the quota ends on the bar (0–1), when the bar is longer than the quota (over it); else null. */
  quotaMark: number | null;
  unlimited: boolean;
  /** Bytes beyond the quota (0 when within it or unlimited). */
  overBy: number;
  freeBytes: number;
}

const share = (bytes: number, whole: number) => (whole > 0 ? Math.max(0, bytes) / whole : 0);

/**
 * Files, their kept versions, trash and free space on one bar. Within the quota the bar is the quota; over it, the
 * bar is what is used and a mark shows where the quota ends; unlimited, the bar is what is used
 * and there is no free part (free space is not a number the daemon can promise).
 */
export function quotaPicture(usage: UsageDetail): QuotaPicture {
  const unlimited = usage.maxBytes < 0;
  const versionBytes = usage.versionBytes;
  const used = Math.max(usage.usedBytes, usage.fileBytes + versionBytes + usage.trashBytes);
  const freeBytes = unlimited ? 0 : Math.max(0, usage.maxBytes - used);
  const overBy = unlimited ? 0 : Math.max(0, used - usage.maxBytes);
  const whole = unlimited || overBy > 0 ? used : usage.maxBytes;
  const segments: Segment<QuotaPart>[] = [
    { name: 'files', bytes: usage.fileBytes, fraction: share(usage.fileBytes, whole) },
    // Kept versions (docs/versions.md) show only when there are some.
    ...(versionBytes > 0 ? [{ name: 'versions' as const, bytes: versionBytes, fraction: share(versionBytes, whole) }] : []),
    { name: 'trash', bytes: usage.trashBytes, fraction: share(usage.trashBytes, whole) },
  ];
  if (!unlimited) segments.push({ name: 'free', bytes: freeBytes, fraction: share(freeBytes, whole) });
  return { segments, quotaMark: overBy > 0 ? share(usage.maxBytes, whole) : null, unlimited, overBy, freeBytes };
}

/** The files' bytes by kind, as shares of all the files' bytes. */
export function kindSegments(byKind: Record<FileKind, number>): Segment<FileKind>[] {
  const whole = FILE_KINDS.reduce((sum, kind) => sum + Math.max(0, byKind[kind] ?? 0), 0);
  return FILE_KINDS.map((kind) => ({ name: kind, bytes: byKind[kind] ?? 0, fraction: share(byKind[kind] ?? 0, whole) }));
}
