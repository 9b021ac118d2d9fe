import { useTranslation } from 'react-i18next';
import { CloudUpload, FolderOpen, FolderX } from 'lucide-react';
import { ApiError, errorMessage } from '../../api/client';
import type { Sort, SortKey } from '../../lib/rows';
import { EmptyState } from '../EmptyState/EmptyState';
import { FileGrid } from '../FileGrid/FileGrid';
import { FileTable, type FileViewProps } from '../FileTable/FileTable';
import { SearchView, type SearchViewProps } from '../SearchView/SearchView';
import type { ViewMode } from './viewMode';

interface BrowserBodyProps {
  username: string;
  /** "ana" or "ana › Docs", as the person reads where they are. */
  location: string;
  /** The settled search text: while there is one, its results replace the listing. */
  query: string;
  loading: boolean;
  /** The listing's request failed (`error`); `onRetry` asks again. */
  failed: { error: unknown; onRetry: () => void } | null;
  /** No folder and no file here. */
  empty: boolean;
  emptyRoot: boolean;
  /** Opens the user's root (inside a folder only): the way back from a folder that does not exist. */
  onOpenRoot?: () => void;
  view: ViewMode;
  viewProps: Omit<FileViewProps, 'label'>;
  sort: Sort;
  onSort: (key: SortKey) => void;
  /** Absent for a caller who may only read: the empty state then says nothing can be added. */
  onChooseFiles?: () => void;
  /** What the search results do (the folder's actions among them), while `query` shows them. */
  search: Omit<SearchViewProps, 'username' | 'query'>;
}

/** What fills the file browser under its toolbar: search results, the list or grid, or why there is none. */
export function BrowserBody(props: BrowserBodyProps) {
  const { t } = useTranslation();
  const { location } = props;
  if (props.query) {
    return <SearchView {...props.search} username={props.username} query={props.query} />;
  }
  if (props.loading) {
    return (
      <div className="browser__loading" role="status">
        {t('explorer:browser.loading', { location })}
      </div>
    );
  }
  const missing = props.failed ? missingReason(props.failed.error) : null;
  if (props.failed && missing) {
    // A link or a bookmark to a folder that is gone or not theirs: a way back, not a blank page.
    return (
      <EmptyState
        icon={FolderX}
        title={t(`explorer:browser.${missing}`)}
        action={
          missing === 'notFound' && props.onOpenRoot ? (
            <button type="button" className="button button--primary" onClick={props.onOpenRoot}>
              {t('explorer:browser.openRoot', { username: props.username })}
            </button>
          ) : (
            <a className="button button--primary" href="/">
              {t('explorer:browser.toStart')}
            </a>
          )
        }
      >
        {errorMessage(props.failed.error)}
      </EmptyState>
    );
  }
  if (props.failed) {
    const { onRetry } = props.failed;
    return (
      <EmptyState
        icon={FolderOpen}
        title={t('explorer:browser.loadFailed')}
        action={
          <button type="button" className="button" onClick={onRetry}>
            {t('explorer:browser.retry')}
          </button>
        }
      >
        {errorMessage(props.failed.error)}
      </EmptyState>
    );
  }
  if (props.empty) {
    return (
      <EmptyState
        icon={CloudUpload}
        title={props.emptyRoot ? t('explorer:browser.emptyRoot') : t('explorer:browser.emptyFolder')}
        action={
          props.onChooseFiles ? (
            <button type="button" className="button button--primary" onClick={props.onChooseFiles}>
              {t('explorer:browser.uploadFiles')}
            </button>
          ) : undefined
        }
      >
        {props.onChooseFiles ? t('explorer:browser.emptyHint') : t('explorer:browser.emptyReadOnlyHint')}
      </EmptyState>
    );
  }
  const viewProps = { ...props.viewProps, label: t('explorer:browser.listLabel', { location }) };
  return props.view === 'grid' ? (
    <FileGrid {...viewProps} username={props.username} />
  ) : (
    <FileTable {...viewProps} sort={props.sort} onSort={props.onSort} />
  );
}

/** Why a listing failed when retrying cannot help: the folder (or user) is not there, or not the caller's. */
function missingReason(error: unknown): 'notFound' | 'forbidden' | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 404) return 'notFound';
  return error.status === 403 ? 'forbidden' : null;
}
