import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { FilePenLine, X } from 'lucide-react';
import type { FileEntry } from '../../../shared/types';
import { formatBytes } from '../../lib/format';
import { isTextFile } from '../TextEditor/editableText';
import { LazyTextEditor } from '../TextEditor/LazyTextEditor';
import { ToastPlace } from '../Toasts/ToastPlace';
import { DownloadButton, PreviewBody } from './PreviewBody';
import { previewKind, previewRing } from './previewKind';
import { RingButton } from './RingButton';
import './Preview.css';

export interface PreviewViewerProps {
  username: string;
  /** The listing the file was opened from; next and previous step through its previewable files. */
  files: FileEntry[];
  index: number;
  onIndexChange(i: number): void;
  onClose(): void;
}

const FOCUSABLE = [
  'button:not([disabled])',
  'a[href]',
  'iframe',
  'video[controls]',
  'audio[controls]',
  '[tabindex]:not([tabindex="-1"])',
].join(', ');

/** Keys that media controls and the PDF viewer use themselves (seek, volume): not next/previous there. */
const OWN_ARROWS = 'video, audio, iframe, input, textarea, select';

/**
 * The file previewer (docs/explorer.md, "Preview"): a modal over the whole window showing one
 * file of a listing — images, PDF in the browser's viewer, text with line numbers, audio and
 * video — with next/previous through the listing's previewable files (buttons, ← and →).
 * Escape closes it, and focus goes back to what had it before (the row that opened it).
 */
export function PreviewViewer({ username, files, index, onIndexChange, onClose }: PreviewViewerProps) {
  const { t } = useTranslation();
  const dialog = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const file = files[index] as FileEntry | undefined;
  const [editing, setEditing] = useState<FileEntry | null>(null);
  const ring = useMemo(() => previewRing(files, index), [files, index]);
  const place = ring.indexOf(index);
  const previous = place > 0 ? ring[place - 1] : null;
  const next = place >= 0 && place < ring.length - 1 ? ring[place + 1] : null;

  const latest = useRef({ onClose, onIndexChange, previous, next });
  useEffect(() => {
    latest.current = { onClose, onIndexChange, previous, next };
  });

  // In, and back out: focus moves to the viewer itself (not a button: the Space that opened
  // it must not press one), and returns to the element that had it when the viewer closes.
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.current?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  // Stepping to another file unmounts what had focus (a video's controls): keep it inside.
  useEffect(() => {
    const root = dialog.current;
    if (root && !root.contains(document.activeElement)) root.focus();
  }, [index]);

  // Keys pressed while focus is outside the viewer (a click on its backdrop can leave it on the
  // page): Escape and the arrows still work, and focus comes back in.
  useEffect(() => {
    const onWindowKey = (event: KeyboardEvent) => {
      const root = dialog.current;
      if (event.defaultPrevented || !root || root.contains(event.target as Node)) return;
      const { onClose: close, onIndexChange: go, previous: before, next: after } = latest.current;
      if (event.key === 'Escape') {
        event.preventDefault();
        close();
      } else if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
        event.preventDefault();
        root.focus();
        const to = event.key === 'ArrowLeft' ? before : after;
        if (to !== null) go(to);
      }
    };
    window.addEventListener('keydown', onWindowKey);
    return () => window.removeEventListener('keydown', onWindowKey);
  }, []);

  // A listing that shrank under the viewer (the file deleted elsewhere) leaves nothing to show.
  useEffect(() => {
    if (!file) latest.current.onClose();
  }, [file]);

  if (!file) return null;
  const kind = previewKind(file);

  function onKeyDown(event: React.KeyboardEvent<HTMLDivElement>) {
    const { onClose: close, onIndexChange: go, previous: before, next: after } = latest.current;
    if (event.key === 'Escape') {
      event.stopPropagation();
      event.preventDefault();
      close();
      return;
    }
    const target = event.target as HTMLElement;
    if ((event.key === 'ArrowLeft' || event.key === 'ArrowRight') && !event.altKey && !event.ctrlKey && !event.metaKey) {
      if (target.closest(OWN_ARROWS)) return;
      const to = event.key === 'ArrowLeft' ? before : after;
      event.preventDefault();
      if (to !== null) go(to);
      return;
    }
    if (event.key === 'Tab') trapTab(event);
  }

  function trapTab(event: React.KeyboardEvent<HTMLDivElement>) {
    const root = dialog.current;
    if (!root) return;
    const items = [...root.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    const active = document.activeElement;
    if (event.shiftKey && (active === first || active === root)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && active === last) {
      event.preventDefault();
      first.focus();
    }
  }

  const where = file.folder ?? t('preview:root');
  return createPortal(
    <div className="preview-backdrop">
      <div ref={dialog} className="preview" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} onKeyDown={onKeyDown}>
        <header className="preview__bar">
          <div className="preview__heading">
            <h2 id={titleId} className="preview__name" title={file.name}>
              {file.name}
            </h2>
            <p className="preview__meta">
              <span>{where}</span>
              <span aria-hidden="true"> · </span>
              <span>{formatBytes(file.size)}</span>
              {ring.length > 1 ? (
                <>
                  <span aria-hidden="true"> · </span>
                  <span>{t('preview:position', { current: place + 1, total: ring.length })}</span>
                </>
              ) : null}
            </p>
          </div>
          <div className="preview__actions">
            {isTextFile(file) ? (
              <button type="button" className="button" aria-label={t('editor:action')} onClick={() => setEditing(file)}>
                <FilePenLine size={16} aria-hidden="true" />
                <span className="preview__label">{t('editor:action')}</span>
              </button>
            ) : null}
            {kind !== null ? <DownloadButton username={username} file={file} /> : null}
            <button
              type="button"
              className="preview__icon-button"
              aria-label={t('preview:close')}
              title={t('preview:close')}
              onClick={onClose}
            >
              <X size={20} aria-hidden="true" />
            </button>
          </div>
        </header>
        {/* Its own errors (a failed download) show here, above the picture, not under the preview. */}
        <ToastPlace kind="overlay" className="toast-place--overlay" />
        <div className="preview__stage">
          {ring.length > 1 ? <RingButton direction="previous" target={previous} onGo={onIndexChange} /> : null}
          <div className={`preview__content preview__content--${kind ?? 'card'}`}>
            <PreviewBody key={`${file.folder ?? ''}/${file.name}/${file.modifiedAt}`} username={username} file={file} kind={kind} />
          </div>
          {ring.length > 1 ? <RingButton direction="next" target={next} onGo={onIndexChange} /> : null}
        </div>
      </div>
      {editing ? <LazyTextEditor username={username} file={editing} onClose={() => setEditing(null)} /> : null}
    </div>,
    document.body,
  );
}
