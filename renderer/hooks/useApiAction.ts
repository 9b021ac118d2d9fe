import { useCallback } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { errorMessage } from '../api/client';
import { useToast } from '../components/Toasts/toastContext';

/**
 * Runs a daemon call, shows its error in a toast (never a silent failure), and marks
 * the given queries stale afterwards whether it worked or not.
 */
export function useApiAction() {
  const queryClient = useQueryClient();
  const toast = useToast();
  return useCallback(
    async <T>(failureTitle: string, action: () => Promise<T>, invalidate: readonly QueryKey[] = []): Promise<T | undefined> => {
      try {
        return await action();
      } catch (error) {
        toast.error(failureTitle, errorMessage(error));
        return undefined;
      } finally {
        await Promise.all(invalidate.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      }
    },
    [queryClient, toast],
  );
}
