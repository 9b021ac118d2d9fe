import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../api/queryKeys';
import { useClient } from '../components/Session/sessionContext';
import { useToast } from '../components/Toasts/toastContext';
import { UploadQueue, failureHeadline, type UploadItem } from './UploadQueue';
import { RESUMABLE_FROM_BYTES, uploadResumable } from './resumable';
import { UploadsContext } from './uploadsContext';

/** One upload queue per session, wired to the client, the query cache and the toasts. */
export function UploadsProvider({ children }: { children: ReactNode }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const toast = useToast();
  const latest = useRef({ queryClient, toast });
  useEffect(() => {
    latest.current = { queryClient, toast };
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
    return new UploadQueue(
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
        onFailed: (item) => {
          latest.current.toast.error(`Could not upload “${item.name}”`, `${failureHeadline(item)}: ${item.error ?? ''}`);
          refresh(item);
        },
      },
    );
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
