import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TrashItem } from '../../../shared/types';
import { ApiError, errorMessage } from '../../api/client';
import { useTrashActions } from '../../hooks/useTrash';
import { useToast } from '../Toasts/toastContext';

/** What the view is asking before it acts. */
export type Question = { kind: 'empty' } | { kind: 'delete'; items: TrashItem[] } | { kind: 'copy'; items: TrashItem[] };

/**
 * The trash view's selection and what it does to items, one at a time, with a toast for the
 * outcome. A restore whose name is taken again (409) is not a failure: those items come back as
 * the question "Restore as a copy". `busy` while anything runs.
 */
export function useTrashCommands(username: string, items: readonly TrashItem[]) {
  const { t } = useTranslation();
  const actions = useTrashActions(username);
  const toast = useToast();
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [question, setQuestion] = useState<Question | null>(null);
  const [busy, setBusy] = useState(false);
  // Items restored or deleted elsewhere leave the selection with the list.
  const selected = useMemo(() => items.filter((item) => picked.has(item.id)), [items, picked]);

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
  const toggleAll = () => setPicked(allPicked ? new Set() : new Set(items.map((item) => item.id)));
  const clearSelection = () => setPicked(new Set());

  return {
    picked,
    selected,
    allPicked,
    toggle,
    toggleAll,
    clearSelection,
    busy,
    question,
    setQuestion,
    restore,
    deleteForGood,
    emptyTrash,
  };
}
