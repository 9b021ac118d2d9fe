import { useTranslation } from 'react-i18next';
import { freeName, type ConflictAnswer, type PlannedFile } from '../../upload/folderBatch';
import { Dialog } from '../Dialog/Dialog';
import './UploadConflictDialog.css';

interface UploadConflictDialogProps {
  /** The files of the batch that would land on a name already taken. */
  conflicts: readonly PlannedFile[];
  onAnswer: (answer: ConflictAnswer) => void;
  /** Closing without an answer uploads nothing of the batch. */
  onClose: () => void;
}

/** How many of the taken names the dialog lists; the rest are counted. */
const LISTED = 5;

/**
 * The one question of a folder upload whose files land on names already taken: replace them,
 * keep both (the new copy under a free name) or skip them, for the whole batch. Keep both has
 * the focus: Enter loses nothing.
 */
export function UploadConflictDialog({ conflicts, onAnswer, onClose }: UploadConflictDialogProps) {
  const { t } = useTranslation();
  const count = conflicts.length;
  const pathOf = (file: PlannedFile) => (file.folder === null ? file.name : `${file.folder}/${file.name}`);
  const sorted = [...conflicts].sort((a, b) => pathOf(a).localeCompare(pathOf(b)));
  const listed = sorted.slice(0, LISTED).map(pathOf);
  // No line break inside the example name: "a (2).txt" reads as one name.
  const example = freeName(sorted[0].name, new Set()).replaceAll(' ', '\u00a0');
  return (
    <Dialog
      title={t('upload:folder.conflict.title', { count })}
      onClose={onClose}
      initialFocus="[data-keep-both]"
      width={480}
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            {t('common:cancel')}
          </button>
          <button type="button" className="button" onClick={() => onAnswer('skip')}>
            {t('upload:folder.conflict.skip')}
          </button>
          <button type="button" className="button button--danger" onClick={() => onAnswer('replace')}>
            {t('upload:folder.conflict.replace')}
          </button>
          <button type="button" className="button button--primary" data-keep-both onClick={() => onAnswer('keep-both')}>
            {t('upload:folder.conflict.keepBoth')}
          </button>
        </>
      }
    >
      <p>{t('upload:folder.conflict.body', { count })}</p>
      <ul className="upload-conflicts" aria-label={t('upload:folder.conflict.list')}>
        {listed.map((path) => (
          <li key={path} className="upload-conflicts__item" title={path}>
            {path}
          </li>
        ))}
      </ul>
      {count > LISTED ? <p className="upload-conflicts__more">{t('upload:folder.conflict.more', { count: count - LISTED })}</p> : null}
      <p className="upload-conflicts__hint">{t('upload:folder.conflict.keepBothHint', { example })}</p>
    </Dialog>
  );
}
