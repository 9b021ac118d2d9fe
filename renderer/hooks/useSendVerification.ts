import { useCallback } from 'react';
import type { User } from '../../shared/types';
import { queryKeys } from '../api/queryKeys';
import { useClient } from '../components/Session/sessionContext';
import { useToast } from '../components/Toasts/toastContext';
import { useApiAction } from './useApiAction';

/** Sends a user the mail that verifies their address (`user.verify`), saying where it went. */
export function useSendVerification() {
  const client = useClient();
  const toast = useToast();
  const run = useApiAction();
  return useCallback(
    async (user: User): Promise<void> => {
      const result = await run(`Could not send the verification e-mail`, () => client.call('user.verify', { username: user.username }), [
        queryKeys.users,
      ]);
      if (!result) return;
      if (result.delivery === 'smtp')
        toast.show({ kind: 'success', title: `Verification e-mail sent to ${user.email}`, detail: result.msg });
      else
        toast.show({
          kind: 'info',
          title: 'Verification e-mail written to outbox',
          detail: `No mail server is set up, so the message for ${user.email} was saved in the daemon’s outbox folder.`,
          sticky: true,
        });
    },
    [client, toast, run],
  );
}
