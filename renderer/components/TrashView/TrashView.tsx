import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { RotateCcw, Trash2, X } from 'lucide-react';
import { useTrash } from '../../hooks/useTrash';
import { ListState } from '../ListState/ListState';
import { useCanWrite } from '../Session/sessionContext';
import { TrashQuestions } from './TrashQuestions';
import { TrashTable } from './TrashTable';
import { useTrashCommands } from './useTrashCommands';
import './TrashView.css';

export interface TrashViewProps {
  username: string;
}

/**
 * A user's trash (docs/explorer.md, "Trash"): what they deleted, where it was, and how long it
 * stays. Restore puts an item back where it was; when its name is taken again the daemon
 * answers 409 and the view offers "Restore as a copy" (`rename=true`). Delete for good and
 * Empty trash ask first. Several items can be selected and restored or deleted together.
 * Kept current by the shell's event stream (`trash.changed`).
 */
export function TrashView({ username }: TrashViewProps) {
  const { t } = useTranslation();
  const trash = useTrash(username);
  const { items } = trash;
  const commands = useTrashCommands(username, items);
  const { selected, busy, setQuestion } = commands;
  // A read key lists the trash; Empty, Restore and Delete for good would be refused.
  const canWrite = useCanWrite();

  useEffect(() => {
    document.title = t('trash:documentTitle');
  }, [t]);

  const retry = (
    <button type="button" className="button" onClick={() => void trash.refetch()}>
      {t('common:retry')}
    </button>
  );
  const body = (
    <ListState
      icon={Trash2}
      loading={trash.isPending ? t('trash:loading') : null}
      failed={trash.error && items.length === 0 ? { title: t('trash:loadFailed'), error: trash.error, action: retry } : null}
      empty={items.length === 0 ? { title: t('trash:emptyTitle'), text: t('trash:emptyText') } : null}
    >
      <TrashTable
        items={items}
        picked={commands.picked}
        pickedCount={selected.length}
        allPicked={commands.allPicked}
        busy={busy}
        fetching={trash.isFetching}
        onToggle={commands.toggle}
        onToggleAll={commands.toggleAll}
        onRestore={(item) => void commands.restore([item])}
        onDelete={(item) => setQuestion({ kind: 'delete', items: [item] })}
        more={trash.hasNextPage ? { loading: trash.isFetchingNextPage, onLoad: () => void trash.fetchNextPage() } : null}
      />
    </ListState>
  );

  return (
    <section className="trash" aria-labelledby="trash-title">
      <header className="page-header trash__header">
        <div className="trash__intro">
          <h1 id="trash-title">{t('trash:title')}</h1>
          <p>{t('trash:intro')}</p>
        </div>
        {canWrite ? (
          <button
            type="button"
            className="button button--danger trash__empty"
            disabled={busy || items.length === 0}
            onClick={() => setQuestion({ kind: 'empty' })}
          >
            <Trash2 size={16} aria-hidden="true" />
            {t('trash:empty')}
          </button>
        ) : null}
      </header>
      {selected.length > 0 ? (
        <div className="trash__selection" role="toolbar" aria-label={t('trash:selectionActions')}>
          <span className="trash__count" aria-live="polite">
            {t('trash:selected', { count: selected.length })}
          </span>
          {canWrite ? (
            <>
              <button type="button" className="button" disabled={busy} onClick={() => void commands.restore(selected)}>
                <RotateCcw size={16} aria-hidden="true" />
                {t('trash:restoreSelected')}
              </button>
              <button
                type="button"
                className="button button--danger"
                disabled={busy}
                onClick={() => setQuestion({ kind: 'delete', items: selected })}
              >
                <Trash2 size={16} aria-hidden="true" />
                {t('trash:deleteSelected')}
              </button>
            </>
          ) : null}
          <button type="button" className="button button--ghost" onClick={commands.clearSelection}>
            <X size={16} aria-hidden="true" />
            {t('trash:clearSelection')}
          </button>
        </div>
      ) : null}
      {body}
      <TrashQuestions
        question={commands.question}
        itemCount={items.length}
        onEmpty={commands.emptyTrash}
        onDeleteForGood={commands.deleteForGood}
        onRestoreAsCopy={(list) => commands.restore(list, true)}
        onClose={() => setQuestion(null)}
      />
    </section>
  );
}
