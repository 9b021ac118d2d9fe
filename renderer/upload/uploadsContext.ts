import { createContext, useContext, useSyncExternalStore } from 'react';
import type { UploadItem, UploadQueue } from './UploadQueue';

export const UploadsContext = createContext<UploadQueue | null>(null);

export function useUploadQueue(): UploadQueue {
  const queue = useContext(UploadsContext);
  if (!queue) throw new Error('useUploadQueue needs an <UploadsProvider>');
  return queue;
}

export function useUploadItems(): readonly UploadItem[] {
  const queue = useUploadQueue();
  return useSyncExternalStore(queue.subscribe, queue.getSnapshot);
}
