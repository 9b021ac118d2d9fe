import type { FileEntry } from '../../../shared/types';

export interface PreviewViewerProps {
  username: string;
  files: FileEntry[];
  index: number;
  onIndexChange(i: number): void;
  onClose(): void;
}

/** The file previewer (docs/explorer.md, "Preview"): being built (issue 13). */
export function PreviewViewer(props: PreviewViewerProps) {
  const file = props.files[props.index];
  return (
    <div role="dialog" aria-modal="true" aria-label={file?.name}>
      <button type="button" onClick={props.onClose}>
        ×
      </button>
    </div>
  );
}
