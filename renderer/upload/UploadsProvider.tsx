import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../api/queryKeys';
import { useClient } from '../components/Session/sessionContext';
import { UploadQueue, type UploadItem } from './UploadQueue';
import { foldName, freeName } from './folderBatch';
import { RESUMABLE_FROM_BYTES, uploadResumable } from './resumable';
import { listFilesWith } from './sendBatch';
import { UploadsContext } from './uploadsContext';

/** One upload queue per session, wired to the client and the query cache (failures show in the upload panel). */
export function UploadsProvider({ children }: { children: ReactNode }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const latest = useRef({ queryClient });
  useEffect(() => {
    latest.current = { queryClient };
  });

  const [queue] = useState(() => {
    const refresh = (item: UploadItem) => {
      const qc = latest.current.queryClient;
      for (const queryKey of [
        queryKeys.files(item.username, item.folder),
        queryKeys.folders(item.username),
        queryKeys.users,
        queryKeys.dash,
      ]) {
        void qc.invalidateQueries({ queryKey });
      }
    };
    // A kept-both copy whose name was taken meanwhile: the next name free in the folder as it is
    // now, and not one another upload of this queue is about to take.
    const freeNameNow = async (item: UploadItem): Promise<string> => {
      const listed = (await listFilesWith(client, item.username)(item.folder)) ?? [];
      const taken = new Set([...listed, item.name].map(foldName));
      for (const other of created.getSnapshot()) {
        const busy = other.status === 'queued' || other.status === 'uploading';
        const sameFolder = other.username === item.username && other.folder === item.folder;
        if (busy && sameFolder && other.id !== item.id) taken.add(foldName(other.name));
      }
      return freeName(item.besides ?? item.name, taken);
    };
    const created = new UploadQueue(
      (target, body, onProgress, signal) =>
        // Large files resumably (tus): a dropped connection goes on where it stopped (resumable.ts).
        body.size >= RESUMABLE_FROM_BYTES
          ? uploadResumable(client, target, body, onProgress, signal)
          : client.upload(
              { username: target.username, folder: target.folder ?? undefined, file: target.name, overwrite: target.overwrite },
              body,
              onProgress,
              signal,
            ),
      {
        onUploaded: refresh,
        // The failure is said once, where the upload is: its row in the upload panel (an alert,
        // with Replace or Retry beside it), not again in a toast.
        onFailed: refresh,
        freeName: freeNameNow,
      },
    );
    return created;
  });

  // A queue belongs to one identity. When the page leaves it (signing out, switching to a link's
  // key), what it still had to send is cancelled rather than sent as the account that ended.
  // Queued items first, so cancelling a running one starts none of them.
  useEffect(
    () => () => {
      const pending = queue.getSnapshot().filter((item) => item.status === 'queued' || item.status === 'uploading');
      for (const status of ['queued', 'uploading'] as const) {
        for (const item of pending) if (item.status === status) queue.cancel(item.id);
      }
    },
    [queue],
  );

  return <UploadsContext.Provider value={queue}>{children}</UploadsContext.Provider>;
}
