import type { Row } from '../../lib/rows';
import { plural } from '../../lib/format';

const MAX_LISTED = 6;

/** Names exactly what a delete removes, including the files inside folders. */
export function DeleteSummary({ rows }: { rows: readonly Row[] }) {
  const folders = rows.filter((row) => row.kind === 'folder');
  const innerFiles = folders.reduce((sum, row) => sum + (row.kind === 'folder' ? row.folder.fileCount : 0), 0);
  return (
    <>
      <p>{rows.length === 1 ? 'This is permanently deleted:' : `These ${rows.length} items are permanently deleted:`}</p>
      <ul className="delete-list">
        {rows.slice(0, MAX_LISTED).map((row) => (
          <li key={row.key}>
            <strong>{row.name}</strong>
            {row.kind === 'folder' ? ` — folder with ${plural(row.folder.fileCount, 'file')}` : null}
          </li>
        ))}
        {rows.length > MAX_LISTED ? <li>and {rows.length - MAX_LISTED} more</li> : null}
      </ul>
      {innerFiles > 0 ? (
        <p>The {plural(innerFiles, 'file')} inside are deleted too. Share links stop working.</p>
      ) : (
        <p>{rows.length === 1 ? 'Its share link, if any, stops working.' : 'Their share links stop working.'}</p>
      )}
    </>
  );
}
