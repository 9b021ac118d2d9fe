import type { TFunction } from 'i18next';
import { formatBytes } from '../../lib/format';
import type { Row } from '../../lib/rows';

/** The status bar's line for a directory: "2 folders · 3 files · 51 B · 1 selected" (inside a folder, its folders only when it has some). */
export function directorySummary(t: TFunction, rows: readonly Row[], folder: string | null, selectedCount: number): string {
  const fileCount = rows.filter((row) => row.kind === 'file').length;
  const folderCount = rows.length - fileCount;
  const totalBytes = rows.reduce((sum, row) => sum + (row.kind === 'file' ? row.size : 0), 0);
  return [
    folder === null || folderCount > 0 ? t('explorer:status.folders', { count: folderCount }) : null,
    t('explorer:status.files', { count: fileCount }),
    formatBytes(totalBytes),
    selectedCount > 0 ? t('explorer:status.selected', { count: selectedCount }) : null,
  ]
    .filter(Boolean)
    .join(' · ');
}
