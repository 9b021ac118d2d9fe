import type { FileEntry } from '../../../shared/types';

export interface SearchViewProps {
  username: string;
  query: string;
  onOpenFolder(folder: string | null): void;
  onPreview(files: FileEntry[], index: number): void;
}

/** Search results across a user's storage (docs/explorer.md, "Search"): being built (issue 13). */
export function SearchView(props: SearchViewProps) {
  return <section aria-label={props.query} />;
}
