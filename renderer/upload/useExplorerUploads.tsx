import { useCallback, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../api/client';
import { queryKeys } from '../api/queryKeys';
import { useClient } from '../components/Session/sessionContext';
import { useToast } from '../components/Toasts/toastContext';
import { UploadConflictDialog } from '../components/UploadConflictDialog/UploadConflictDialog';
import { readDroppedTree, treeOfPickedFiles, type DroppedTree } from './droppedTree';
import { conflictsOf, jobsOf, keptName, planBatch, type BatchPlan, type ConflictAnswers, type PlannedFile } from './folderBatch';
import { freeBytes, pendingBytes, upFrontRefusal } from './quotaRoom';
import { listFilesWith, sendBatch } from './sendBatch';
import { useUploadQueue } from './uploadsContext';

interface Question {
  plan: BatchPlan;
  conflicts: PlannedFile[];
}

// React does not know the picker's attribute; a plain attribute reaches the DOM as it is.
const DIRECTORY_PICKER = { webkitdirectory: '' } as Record<string, string>;

/**
 * The explorer's ways in for files: plain files (dropped or picked) into the open folder, a
 * folder (dropped or picked) as a tree. Either way the names already taken are asked about
 * before anything is sent (keep both, replace or skip; for each file or all of them). Renders
 * the two hidden pickers and that question.
 */
export function useExplorerUploads(username: string, folder: string | null) {
  const { t } = useTranslation();
  const client = useClient();
  const queue = useUploadQueue();
  const toast = useToast();
  const queryClient = useQueryClient();
  const filesPicker = useRef<HTMLInputElement>(null);
  const folderPicker = useRef<HTMLInputElement>(null);
  const [question, setQuestion] = useState<Question | null>(null);

  /**
   * Why the new files of a batch cannot start for want of space, or null: checked against the
   * usage asked afresh (other windows upload too) and what this queue still has to send. If the
   * usage cannot be had, the daemon decides, as it does anyway for what races this check.
   */
  const refusedForRoom = useCallback(
    async (plan: BatchPlan, answers: ConflictAnswers): Promise<string | null> => {
      const added = jobsOf(plan, answers).filter((job) => !job.overwrite);
      if (added.length === 0) return null;
      const usage = await queryClient
        .fetchQuery({
          queryKey: [...queryKeys.user(username), 'usage'],
          queryFn: async ({ signal }) => (await client.call('usage.get', { username }, signal)).usage,
          staleTime: 0, // asked afresh: what was shown a moment ago may be another upload ago
        })
        .catch(() => null);
      if (!usage) return null;
      const free = freeBytes(usage, pendingBytes(queue.getSnapshot(), username));
      return upFrontRefusal(
        added.map((job) => ({ name: job.name, size: job.file.size })),
        free,
      );
    },
    [client, queue, username, queryClient],
  );

  const send = useCallback(
    async (plan: BatchPlan, answers: ConflictAnswers) => {
      // Refused before anything starts (no folder made, no byte sent), said once.
      const noRoom = await refusedForRoom(plan, answers);
      if (noRoom !== null) {
        toast.error(t('upload:headline.noSpace'), noRoom);
        return;
      }
      const failed = await sendBatch(client, queue, username, folder, plan, answers);
      for (const [path, message] of failed) {
        // One toast for the top of each failed branch; the files below show in the panel.
        if (!failed.has(path.slice(0, Math.max(0, path.lastIndexOf('/')))))
          toast.error(t('upload:folder.createFailed', { name: path }), message);
      }
      // Refused names: one toast for the batch; each file's reason is said once, in the panel.
      if (plan.refused.length > 0) toast.error(t('upload:folder.refused', { count: plan.refused.length }));
      if (plan.create.length > 0) await queryClient.invalidateQueries({ queryKey: queryKeys.folders(username) });
    },
    [client, queue, username, folder, toast, t, queryClient, refusedForRoom],
  );

  /** Asks about the plan's taken names, if any; else sends it. */
  const askOrSend = useCallback(
    async (plan: BatchPlan) => {
      const conflicts = conflictsOf(plan);
      if (conflicts.length > 0) setQuestion({ plan, conflicts });
      else await send(plan, 'skip');
    },
    [send],
  );

  // Plain files are a batch without folders, checked against the open folder's listing. If it
  // cannot be listed they go as before: a taken name is then the daemon's 409, with Replace in
  // the upload panel, and nothing is overwritten unasked.
  const onFiles = useCallback(
    (list: File[]) => {
      const tree: DroppedTree = { folders: [], files: list.map((file) => ({ path: file.name, file })) };
      void planBatch(tree, folder, listFilesWith(client, username)).then(askOrSend, () =>
        queue.add(
          list.map((file) => ({ name: file.name, body: file })),
          username,
          folder,
        ),
      );
    },
    [client, queue, username, folder, askOrSend],
  );

  const onTree = useCallback(
    async (tree: DroppedTree) => {
      let plan: BatchPlan;
      try {
        plan = await planBatch(tree, folder, listFilesWith(client, username));
      } catch (error) {
        toast.error(t('upload:folder.checkFailed'), errorMessage(error));
        return;
      }
      await askOrSend(plan);
    },
    [client, username, folder, toast, t, askOrSend],
  );

  const onEntries = useCallback(
    (entries: FileSystemEntry[]) => {
      readDroppedTree(entries).then(onTree, (error: unknown) => toast.error(t('upload:folder.readFailed'), errorMessage(error)));
    },
    [onTree, toast, t],
  );

  const pickers: ReactNode = (
    <>
      <input
        ref={filesPicker}
        type="file"
        multiple
        hidden
        aria-label={t('explorer:browser.chooseFiles')}
        onChange={(event) => {
          const list = Array.from(event.currentTarget.files ?? []);
          event.currentTarget.value = '';
          if (list.length > 0) onFiles(list);
        }}
      />
      <input
        ref={folderPicker}
        type="file"
        multiple
        hidden
        {...DIRECTORY_PICKER}
        aria-label={t('explorer:browser.chooseFolder')}
        onChange={(event) => {
          const list = Array.from(event.currentTarget.files ?? []);
          event.currentTarget.value = '';
          if (list.length > 0) void onTree(treeOfPickedFiles(list));
        }}
      />
      {question ? (
        <UploadConflictDialog
          conflicts={question.conflicts}
          username={username}
          keptAs={(file) => keptName(question.plan, file)}
          onAnswer={(answers) => {
            setQuestion(null);
            void send(question.plan, answers);
          }}
          onClose={() => setQuestion(null)}
        />
      ) : null}
    </>
  );

  return {
    onFiles,
    onEntries,
    chooseFiles: () => filesPicker.current?.click(),
    chooseFolder: () => folderPicker.current?.click(),
    pickers,
  };
}
