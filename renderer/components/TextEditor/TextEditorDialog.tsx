import { useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { Save, X } from 'lucide-react';
import type { FileEntry } from '../../../shared/types';
import { formatBytes } from '../../lib/format';
import { CodeEditor } from './CodeEditor';
import { EDIT_LIMIT_BYTES } from './editableText';
import { UnsavedPrompt } from './UnsavedPrompt';
import { useEditedFile, type Loaded, type SaveState } from './useEditedFile';
import './TextEditor.css';

export interface TextEditorDialogProps {
  username: string;
  file: FileEntry;
  onClose(): void;
}

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), [contenteditable="true"], [tabindex]:not([tabindex="-1"])';

/**
 * A text file edited in place (issue 29, item 9): the whole window on a phone, a large
 * dialog on a desktop. Ctrl+S or Save writes it as the file's new content, so what it replaces
 * is kept as a version; closing with unsaved changes asks first. Keys stay inside: the
 * previewer or the list under it never sees them.
 */
export function TextEditorDialog({ username, file, onClose }: TextEditorDialogProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const edited = useEditedFile(username, file);
  const [asking, setAsking] = useState(false);
  const { loaded, dirty, saveState } = edited;
  const saving = saveState.status === 'saving';

  // Focus comes back to what opened the editor (the menu's row, the previewer's Edit button).
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.current?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  const requestClose = () => (dirty ? setAsking(true) : onClose());

  function onKeyDown(event: React.KeyboardEvent<HTMLDivElement>) {
    event.stopPropagation();
    if (event.key === 'Escape') {
      // CodeMirror's own Escape (closing its search panel) comes first.
      if (event.defaultPrevented || (event.target as HTMLElement).closest('.cm-panels')) return;
      event.preventDefault();
      if (asking) setAsking(false);
      else requestClose();
    } else if (event.key === 'Tab') {
      keepTabInside(event, dialog.current?.querySelector<HTMLElement>('.text-editor__ask') ?? dialog.current);
    } else if (event.key.toLowerCase() === 's' && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
      // Ctrl+S from a button (the text's own binding already took it there): the file, not the page.
      event.preventDefault();
      if (loaded.status === 'ready' && !asking) void edited.save();
    }
  }

  return createPortal(
    <div className="text-editor-backdrop">
      <div
        ref={dialog}
        className="text-editor"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <header className="text-editor__bar">
          <div className="text-editor__heading">
            <h2 id={titleId} className="text-editor__title" title={file.name}>
              {t('editor:title', { name: file.name })}
            </h2>
            <p className="text-editor__status" aria-live="polite">
              {statusText(t, loaded, dirty, saveState)}
            </p>
          </div>
          <div className="text-editor__actions">
            <button
              type="button"
              className="button button--primary"
              title={t('editor:saveHint')}
              disabled={loaded.status !== 'ready' || saving}
              onClick={() => void edited.save()}
            >
              <Save size={16} aria-hidden="true" />
              {t('editor:save')}
            </button>
            <button type="button" className="icon-button" aria-label={t('editor:close')} title={t('editor:close')} onClick={requestClose}>
              <X size={20} aria-hidden="true" />
            </button>
          </div>
        </header>
        {edited.conflict ? (
          <div className="text-editor__problem" role="alert">
            <p>{t('editor:changed', { name: file.name })}</p>
            <button type="button" className="button" onClick={edited.reload}>
              {t('editor:reload')}
            </button>
            <button type="button" className="button button--primary" onClick={() => void edited.saveAsCopy()}>
              {t('editor:saveCopy')}
            </button>
          </div>
        ) : null}
        {saveState.status === 'failed' ? (
          <div className="text-editor__problem" role="alert">
            <p>
              {t('editor:saveFailed', { name: file.name })}: {saveState.message}
            </p>
          </div>
        ) : null}
        <div className="text-editor__body">
          {loaded.status === 'ready' ? (
            <CodeEditor
              key={loaded.revision}
              text={loaded.text}
              fileName={file.name}
              label={t('editor:textLabel', { name: file.name })}
              onChange={edited.onChange}
              onSave={() => void edited.save()}
            />
          ) : (
            <p className="text-editor__notice" role={loaded.status === 'loading' ? 'status' : undefined}>
              {noticeText(t, loaded, file)}
            </p>
          )}
        </div>
        {asking ? (
          <UnsavedPrompt
            name={file.name}
            busy={saving}
            onCancel={() => setAsking(false)}
            onDiscard={onClose}
            onSave={async () => {
              setAsking(false);
              if (await edited.save()) onClose();
            }}
          />
        ) : null}
      </div>
    </div>,
    document.body,
  );
}

type T = ReturnType<typeof useTranslation>['t'];

function statusText(t: T, loaded: Loaded, dirty: boolean, saveState: SaveState): string {
  if (loaded.status !== 'ready') return '';
  if (saveState.status === 'saving') return t('editor:saving');
  if (saveState.status === 'copied') return t('editor:savedCopy', { name: saveState.name });
  if (dirty) return t('editor:unsaved');
  return saveState.status === 'saved' ? t('editor:saved') : t('editor:noChanges');
}

function noticeText(t: T, loaded: Exclude<Loaded, { status: 'ready' }>, file: FileEntry): string {
  switch (loaded.status) {
    case 'loading':
      return t('editor:loading');
    case 'tooLarge':
      return t('editor:tooLarge', { size: formatBytes(file.size), limit: formatBytes(EDIT_LIMIT_BYTES) });
    case 'notUtf8':
      return t('editor:notUtf8');
    case 'failed':
      return `${t('editor:loadFailed')} ${loaded.message}`;
  }
}

/** Tab and Shift+Tab go round the dialog's controls (or the prompt's, while it asks). */
function keepTabInside(event: React.KeyboardEvent, root: HTMLElement | null) {
  const items = root ? [...root.querySelectorAll<HTMLElement>(FOCUSABLE)] : [];
  if (items.length === 0) return;
  const first = items[0];
  const last = items[items.length - 1];
  if (event.shiftKey && (document.activeElement === first || document.activeElement === root)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}
