import { useTranslation } from 'react-i18next';
import type { TrashItem } from '../../../shared/types';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { RestoreCopyDialog } from './RestoreCopyDialog';
import type { Question } from './useTrashCommands';

interface TrashQuestionsProps {
  question: Question | null;
  /** Items in the trash, for "Empty trash"'s count. */
  itemCount: number;
  onEmpty(): Promise<void>;
  onDeleteForGood(items: TrashItem[]): Promise<void>;
  onRestoreAsCopy(items: TrashItem[]): Promise<void>;
  onClose(): void;
}

/** The trash view's one open question, if any: empty the trash, delete for good, or restore as a copy. */
export function TrashQuestions({ question, itemCount, onEmpty, onDeleteForGood, onRestoreAsCopy, onClose }: TrashQuestionsProps) {
  const { t } = useTranslation();
  switch (question?.kind) {
    case 'empty':
      return (
        <ConfirmDialog title={t('trash:emptyConfirmTitle')} confirmLabel={t('trash:empty')} onConfirm={onEmpty} onClose={onClose}>
          <p>{t('trash:emptyConfirmText', { count: itemCount })}</p>
        </ConfirmDialog>
      );
    case 'delete':
      return (
        <ConfirmDialog
          title={
            question.items.length === 1
              ? t('trash:deleteConfirmTitle', { name: question.items[0].name })
              : t('trash:deleteManyConfirmTitle', { count: question.items.length })
          }
          confirmLabel={t('trash:deleteForGood')}
          onConfirm={() => onDeleteForGood(question.items)}
          onClose={onClose}
        >
          <p>{t('trash:deleteConfirmText', { count: question.items.length })}</p>
        </ConfirmDialog>
      );
    case 'copy':
      return <RestoreCopyDialog items={question.items} onConfirm={() => onRestoreAsCopy(question.items)} onClose={onClose} />;
    default:
      return null;
  }
}
