import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Folder, RotateCcw, Trash2, X } from 'lucide-react';
import type { TrashItem } from '../../../shared/types';
import { ApiError, errorMessage } from '../../api/client';
import { useTrash, useTrashActions } from '../../hooks/useTrash';
import { KIND_ICON, fileKind } from '../../lib/fileIcon';
import { formatBytes, formatFullDate, formatModified } from '../../lib/format';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { EmptyState } from '../EmptyState/EmptyState';
import { useToast } from '../Toasts/toastContext';
import { RestoreCopyDialog } from './RestoreCopyDialog';
import { daysLeft } from './trashDates';
import './TrashView.css';

export interface TrashViewProps {
  username: string;
}

/** What the view is asking before it acts. */
type Question = { kind: 'empty' } | { kind: 'delete'; items: TrashItem[] } | { kind: 'copy'; items: TrashItem[] };

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
  const actions = useTrashActions(username);
  const toast = useToast();
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [question, setQuestion] = useState<Question | null>(null);
  const [busy, setBusy] = useState(false);
  const { items } = trash;
  // Items restored or deleted elsewhere leave the selection with the list.
  const selected = useMemo(() => items.filter((item) => picked.has(item.id)), [items, picked]);

  useEffect(() => {
    document.title = t('trash:documentTitle');
  }, [t]);

  async function each(list: TrashItem[], act: (item: TrashItem) => Promise<void>): Promise<void> {
    setBusy(true);
    try {
      for (const item of list) await act(item);
    } finally {
      setBusy(false);
      setPicked((current) => new Set([...current].filter((id) => !list.some((item) => item.id === id))));
    }
  }

  async function restore(list: TrashItem[], asCopy = false): Promise<void> {
    const taken: TrashItem[] = [];
    const done: { name: string; folder: string | null; renamed: boolean }[] = [];
    await each(list, async (item) => {
      try {
        const { restored } = await actions.restore(item, asCopy);
        done.push({ name: restored.name, folder: restored.folder, renamed: restored.name !== item.name });
      } catch (error) {
        if (!asCopy && error instanceof ApiError && error.status === 409) taken.push(item);
        else toast.error(t('trash:restoreFailed', { name: item.name }), errorMessage(error));
      }
    });
    if (done.length === 1) {
      const [one] = done;
      const place = one.folder ?? t('trash:root');
      toast.success(one.renamed ? t('trash:restoredAs', { name: one.name, place }) : t('trash:restored', { name: one.name, place }));
    } else if (done.length > 1) {
      toast.success(t('trash:restoredMany', { count: done.length }));
    }
    if (taken.length > 0) setQuestion({ kind: 'copy', items: taken });
  }

  async function deleteForGood(list: TrashItem[]): Promise<void> {
    let deleted = 0;
    await each(list, async (item) => {
      try {
        await actions.remove(item);
        deleted += 1;
      } catch (error) {
        toast.error(t('trash:deleteFailed', { name: item.name }), errorMessage(error));
      }
    });
    if (deleted === 1 && list.length === 1) toast.success(t('trash:deleted', { name: list[0].name }));
    else if (deleted > 0) toast.success(t('trash:deletedMany', { count: deleted }));
  }

  async function emptyTrash(): Promise<void> {
    setBusy(true);
    try {
      const { removed } = await actions.empty();
      setPicked(new Set());
      toast.success(t('trash:emptied', { count: removed }));
    } catch (error) {
      toast.error(t('trash:emptyFailed'), errorMessage(error));
    } finally {
      setBusy(false);
    }
  }

  const toggle = (id: string) =>
    setPicked((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const allPicked = items.length > 0 && selected.length === items.length;

  let body;
  if (trash.isPending) {
    body = (
      <div className="shell__loading" role="status">
        {t('trash:loading')}
      </div>
    );
  } else if (trash.error && items.length === 0) {
    body = (
      <EmptyState
        icon={Trash2}
        title={t('trash:loadFailed')}
        action={
          <button type="button" className="button" onClick={() => void trash.refetch()}>
            {t('common:retry')}
          </button>
        }
      >
        {errorMessage(trash.error)}
      </EmptyState>
    );
  } else if (items.length === 0) {
    body = (
      <EmptyState icon={Trash2} title={t('trash:emptyTitle')}>
        {t('trash:emptyText')}
      </EmptyState>
    );
  } else {
    body = (
      <div className="trash__scroll">
        <table className="trash__table" aria-busy={busy || trash.isFetching}>
          <caption className="visually-hidden">{t('trash:caption')}</caption>
          <thead>
            <tr>
              <th scope="col" className="trash__check">
                <input
                  type="checkbox"
                  aria-label={t('trash:selectAll')}
                  checked={allPicked}
                  ref={(box) => {
                    if (box) box.indeterminate = selected.length > 0 && !allPicked;
                  }}
                  onChange={() => setPicked(allPicked ? new Set() : new Set(items.map((item) => item.id)))}
                />
              </th>
              <th scope="col">{t('trash:name')}</th>
              <th scope="col" className="trash__from">
                {t('trash:from')}
              </th>
              <th scope="col" className="trash__num">
                {t('trash:size')}
              </th>
              <th scope="col" className="trash__when">
                {t('trash:deletedAt')}
              </th>
              <th scope="col" className="trash__left">
                {t('trash:left')}
              </th>
              <th scope="col">
                <span className="visually-hidden">{t('trash:actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <TrashRow
                key={item.id}
                item={item}
                picked={picked.has(item.id)}
                busy={busy}
                onToggle={() => toggle(item.id)}
                onRestore={() => void restore([item])}
                onDelete={() => setQuestion({ kind: 'delete', items: [item] })}
              />
            ))}
          </tbody>
        </table>
        {trash.hasNextPage ? (
          <div className="trash__more">
            <button type="button" className="button" disabled={trash.isFetchingNextPage} onClick={() => void trash.fetchNextPage()}>
              {trash.isFetchingNextPage ? t('trash:loadingMore') : t('trash:loadMore')}
            </button>
          </div>
        ) : null}
      </div>
    );
  }

  return (
    <section className="trash" aria-labelledby="trash-title">
      <header className="page-header trash__header">
        <div className="trash__intro">
          <h1 id="trash-title">{t('trash:title')}</h1>
          <p>{t('trash:intro')}</p>
        </div>
        <button
          type="button"
          className="button button--danger trash__empty"
          disabled={busy || items.length === 0}
          onClick={() => setQuestion({ kind: 'empty' })}
        >
          <Trash2 size={16} aria-hidden="true" />
          {t('trash:empty')}
        </button>
      </header>
      {selected.length > 0 ? (
        <div className="trash__selection" role="toolbar" aria-label={t('trash:selectionActions')}>
          <span className="trash__count" aria-live="polite">
            {t('trash:selected', { count: selected.length })}
          </span>
          <button type="button" className="button" disabled={busy} onClick={() => void restore(selected)}>
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
          <button type="button" className="button button--ghost" onClick={() => setPicked(new Set())}>
            <X size={16} aria-hidden="true" />
            {t('trash:clearSelection')}
          </button>
        </div>
      ) : null}
      {body}
      {question?.kind === 'empty' ? (
        <ConfirmDialog
          title={t('trash:emptyConfirmTitle')}
          confirmLabel={t('trash:empty')}
          onConfirm={emptyTrash}
          onClose={() => setQuestion(null)}
        >
          <p>{t('trash:emptyConfirmText', { count: items.length })}</p>
        </ConfirmDialog>
      ) : null}
      {question?.kind === 'delete' ? (
        <ConfirmDialog
          title={
            question.items.length === 1
              ? t('trash:deleteConfirmTitle', { name: question.items[0].name })
              : t('trash:deleteManyConfirmTitle', { count: question.items.length })
          }
          confirmLabel={t('trash:deleteForGood')}
          onConfirm={() => deleteForGood(question.items)}
          onClose={() => setQuestion(null)}
        >
          <p>{t('trash:deleteConfirmText', { count: question.items.length })}</p>
        </ConfirmDialog>
      ) : null}
      {question?.kind === 'copy' ? (
        <RestoreCopyDialog items={question.items} onConfirm={() => restore(question.items, true)} onClose={() => setQuestion(null)} />
      ) : null}
    </section>
  );
}

interface TrashRowProps {
  item: TrashItem;
  picked: boolean;
  busy: boolean;
  onToggle(): void;
  onRestore(): void;
  onDelete(): void;
}

function TrashRow({ item, picked, busy, onToggle, onRestore, onDelete }: TrashRowProps) {
  const { t } = useTranslation();
  const Icon = item.kind === 'folder' ? Folder : KIND_ICON[fileKind(item.name)];
  const days = daysLeft(item.purgeAt);
  const left = days === null ? '—' : days === 0 ? t('trash:today') : t('trash:days', { count: days });
  const place = item.folder ?? t('trash:root');
  return (
    <tr className={picked ? 'is-selected' : undefined}>
      <td className="trash__check">
        <input type="checkbox" aria-label={t('trash:selectItem', { name: item.name })} checked={picked} onChange={onToggle} />
      </td>
      <th scope="row" className="trash__name">
        <span className="trash__name-inner">
          <Icon size={16} aria-hidden="true" className="trash__icon" />
          <span className="trash__name-lines">
            <span className="trash__name-text" title={item.name}>
              {item.name}
            </span>
            {item.kind === 'folder' ? <span className="trash__files">{t('trash:fileCount', { count: item.fileCount })}</span> : null}
            {/* On a phone the columns of place and time are hidden: they come under the name. */}
            <span className="trash__sub" aria-hidden="true">
              {place} · {left}
            </span>
          </span>
        </span>
      </th>
      <td className="trash__from">{place}</td>
      <td className="trash__num">{formatBytes(item.size)}</td>
      <td className="trash__when" title={formatFullDate(item.deletedAt)}>
        {formatModified(item.deletedAt)}
      </td>
      <td className="trash__left" title={formatFullDate(item.purgeAt)}>
        {left}
      </td>
      <td className="trash__actions">
        <button
          type="button"
          className="button"
          disabled={busy}
          aria-label={t('trash:restoreNamed', { name: item.name })}
          onClick={onRestore}
        >
          <RotateCcw size={15} aria-hidden="true" />
          <span className="trash__label">{t('trash:restore')}</span>
        </button>
        <button
          type="button"
          className="button button--ghost"
          disabled={busy}
          aria-label={t('trash:deleteNamed', { name: item.name })}
          title={t('trash:deleteForGood')}
          onClick={onDelete}
        >
          <Trash2 size={15} aria-hidden="true" />
        </button>
      </td>
    </tr>
  );
}
