import { useEffect, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { freeName, type ConflictAnswer, type ConflictAnswers, type PlannedFile } from '../../upload/folderBatch';
import { Dialog } from '../Dialog/Dialog';
import './UploadConflictDialog.css';

interface UploadConflictDialogProps {
  /** The files of the batch that would land on a name already taken. */
  conflicts: readonly PlannedFile[];
  /** Whose storage: the root is named after them ("already in ana"). */
  username: string;
  /** The name "keep both" gives a file; by default `name (2).ext`. */
  keptAs?: (file: PlannedFile) => string;
  /** Every conflict answered: one answer for all, or each its own. */
  onAnswer: (answers: ConflictAnswers) => void;
  /** Closing without an answer uploads nothing of the batch. */
  onClose: () => void;
}

/** How many of the taken names the dialog lists; the rest are counted. */
const LISTED = 5;

const pathOf = (file: PlannedFile) => (file.folder === null ? file.name : `${file.folder}/${file.name}`);
// No line break inside a name: "a (2).txt" reads as one name.
const unbroken = (name: string) => name.replaceAll(' ', '\u00a0');

/**
 * The question of an upload whose files land on names already taken: keep both (the new copy
 * under a free name), replace (the current content is kept as a version) or skip. With several,
 * "apply to all" (on at first, as one question for a folder's batch) answers the rest at once;
 * off, each file is asked about in turn, by name. Keep both has the focus: Enter loses nothing.
 */
export function UploadConflictDialog({ conflicts, username, keptAs, onAnswer, onClose }: UploadConflictDialogProps) {
  const { t } = useTranslation();
  const [sorted] = useState(() => [...conflicts].sort((a, b) => pathOf(a).localeCompare(pathOf(b))));
  const [given, setGiven] = useState<readonly ConflictAnswer[]>([]);
  const [applyAll, setApplyAll] = useState(true);
  const keepBoth = useRef<HTMLButtonElement>(null);
  const index = given.length;
  const current = sorted[index];
  const remaining = sorted.slice(index);
  const batch = applyAll && remaining.length > 1;
  const kept = (file: PlannedFile) => unbroken(keptAs ? keptAs(file) : freeName(file.name, new Set()));

  // The next file's question starts where the first one did: on Keep both.
  useEffect(() => {
    if (index > 0) keepBoth.current?.focus();
  }, [index]);

  function answer(choice: ConflictAnswer) {
    const answers = batch ? [...given, ...remaining.map(() => choice)] : [...given, choice];
    if (answers.length < sorted.length) {
      setGiven(answers);
      return;
    }
    if (answers.every((each) => each === answers[0])) {
      onAnswer(answers[0]);
      return;
    }
    const byFile = new Map(sorted.map((file, i) => [file, answers[i]]));
    onAnswer((file) => byFile.get(file) ?? 'skip');
  }

  const title = batch
    ? t('upload:folder.conflict.title', { count: remaining.length })
    : t('upload:folder.conflict.titleFile', { name: current.name, folder: current.folder ?? username });
  return (
    <Dialog
      title={title}
      onClose={onClose}
      initialFocus="[data-keep-both]"
      width={480}
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            {t('common:cancel')}
          </button>
          <button type="button" className="button" onClick={() => answer('skip')}>
            {t('upload:folder.conflict.skip')}
          </button>
          <button type="button" className="button button--danger" onClick={() => answer('replace')}>
            {t('upload:folder.conflict.replace')}
          </button>
          <button ref={keepBoth} type="button" className="button button--primary" data-keep-both onClick={() => answer('keep-both')}>
            {t('upload:folder.conflict.keepBoth')}
          </button>
        </>
      }
    >
      {batch ? <BatchQuestion files={remaining} example={kept(remaining[0])} /> : <FileQuestion keptAs={kept(current)} />}
      {sorted.length > 1 && !batch ? (
        <p className="upload-conflicts__progress">{t('upload:folder.conflict.progress', { current: index + 1, count: sorted.length })}</p>
      ) : null}
      {remaining.length > 1 ? (
        <label className="upload-conflicts__all">
          <input type="checkbox" checked={applyAll} onChange={(event) => setApplyAll(event.currentTarget.checked)} />
          {t('upload:folder.conflict.applyAll', { count: remaining.length })}
        </label>
      ) : null}
    </Dialog>
  );
}

/** Several taken names answered at once: which they are (the first few), and what each answer does. */
function BatchQuestion({ files, example }: { files: readonly PlannedFile[]; example: string }) {
  const { t } = useTranslation();
  const count = files.length;
  return (
    <>
      <p>{t('upload:folder.conflict.body', { count })}</p>
      <ul className="upload-conflicts" aria-label={t('upload:folder.conflict.list')}>
        {files.slice(0, LISTED).map((file) => (
          <li key={pathOf(file)} className="upload-conflicts__item" title={pathOf(file)}>
            {pathOf(file)}
          </li>
        ))}
      </ul>
      {count > LISTED ? <p className="upload-conflicts__more">{t('upload:folder.conflict.more', { count: count - LISTED })}</p> : null}
      <p className="upload-conflicts__hint">{t('upload:folder.conflict.keepBothHint', { example })}</p>
      <p className="upload-conflicts__hint">{t('upload:folder.conflict.replaceHint')}</p>
    </>
  );
}

/** One taken name: what each answer does to it, with the name a kept copy gets. */
function FileQuestion({ keptAs }: { keptAs: string }) {
  const strong = { strong: <strong /> };
  return (
    <ul className="upload-conflicts__choices">
      <li>
        <Trans i18nKey="upload:folder.conflict.keepBothFile" values={{ name: keptAs }} components={strong} />
      </li>
      <li>
        <Trans i18nKey="upload:folder.conflict.replaceFile" components={strong} />
      </li>
      <li>
        <Trans i18nKey="upload:folder.conflict.skipFile" components={strong} />
      </li>
    </ul>
  );
}
