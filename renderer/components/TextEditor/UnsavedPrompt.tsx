import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';

interface UnsavedPromptProps {
  name: string;
  busy: boolean;
  onSave(): void;
  onDiscard(): void;
  onCancel(): void;
}

/** Closing with unsaved changes asks: Save, Discard or Cancel (back to the text). Save has focus, so Enter saves. */
export function UnsavedPrompt({ name, busy, onSave, onDiscard, onCancel }: UnsavedPromptProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const bodyId = useId();
  const saveButton = useRef<HTMLButtonElement>(null);
  useEffect(() => saveButton.current?.focus(), []);
  return (
    <div className="text-editor__ask-backdrop">
      <div className="text-editor__ask" role="alertdialog" aria-modal="true" aria-labelledby={titleId} aria-describedby={bodyId}>
        <h3 id={titleId}>{t('editor:ask.title', { name })}</h3>
        <p id={bodyId}>{t('editor:ask.body')}</p>
        <div className="text-editor__ask-buttons">
          <button type="button" className="button" onClick={onCancel}>
            {t('editor:ask.cancel')}
          </button>
          <button type="button" className="button" onClick={onDiscard}>
            {t('editor:ask.discard')}
          </button>
          <button ref={saveButton} type="button" className="button button--primary" disabled={busy} onClick={onSave}>
            {t('editor:ask.save')}
          </button>
        </div>
      </div>
    </div>
  );
}
