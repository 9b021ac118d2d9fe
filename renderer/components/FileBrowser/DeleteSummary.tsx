import { useTranslation } from 'react-i18next';
import type { Row } from '../../lib/rows';

const MAX_LISTED = 6;

/** Names exactly what a delete moves to the trash, including the files inside folders. */
export function DeleteSummary({ rows }: { rows: readonly Row[] }) {
  const { t } = useTranslation();
  const folders = rows.filter((row) => row.kind === 'folder');
  const innerFiles = folders.reduce((sum, row) => sum + (row.kind === 'folder' ? row.folder.fileCount : 0), 0);
  return (
    <>
      <p>{t('explorer:delete.intro', { count: rows.length })}</p>
      <ul className="delete-list">
        {rows.slice(0, MAX_LISTED).map((row) => (
          <li key={row.key}>
            <strong>{row.name}</strong>
            {row.kind === 'folder' ? ` — ${t('explorer:delete.folderWith', { count: row.folder.fileCount })}` : null}
          </li>
        ))}
        {rows.length > MAX_LISTED ? <li>{t('explorer:delete.more', { count: rows.length - MAX_LISTED })}</li> : null}
      </ul>
      {innerFiles > 0 ? (
        <p>{t('explorer:delete.innerFiles', { count: innerFiles })}</p>
      ) : (
        <p>{t('explorer:delete.links', { count: rows.length })}</p>
      )}
    </>
  );
}
