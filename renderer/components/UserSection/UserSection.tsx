import { useState } from 'react';
import type { Role, User } from '../../../shared/types';
import { queryKeys } from '../../api/queryKeys';
import { useApiAction } from '../../hooks/useApiAction';
import { useSendVerification } from '../../hooks/useSendVerification';
import { plural } from '../../lib/format';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { useClient } from '../Session/sessionContext';
import { useToast } from '../Toasts/toastContext';
import { UserDialog } from '../UserDialog/UserDialog';
import { UserHeader } from '../UserHeader/UserHeader';

interface UserSectionProps {
  user: User;
  roles: readonly Role[];
  folderCount: number | undefined;
  onRenamed: (username: string) => void;
  onDeleted: () => void;
}

/** The open user's header and the account operations behind its buttons. */
export function UserSection({ user, roles, folderCount, onRenamed, onDeleted }: UserSectionProps) {
  const client = useClient();
  const toast = useToast();
  const run = useApiAction();
  const sendVerification = useSendVerification();
  const [dialog, setDialog] = useState<'edit' | 'delete' | null>(null);
  const username = user.username;

  async function changeRole(name: string) {
    const done = await run(`Could not give ${username} the role ${name}`, () => client.call('user.role', { username, name }), [
      queryKeys.users,
    ]);
    if (done) toast.success(`${username} now has the role “${name}”`);
  }

  return (
    <>
      <UserHeader
        user={user}
        roles={roles}
        onChangeRole={(name) => void changeRole(name)}
        onVerify={() => void sendVerification(user)}
        onEdit={() => setDialog('edit')}
        onDelete={() => setDialog('delete')}
      />
      {dialog === 'edit' ? (
        <UserDialog
          user={user}
          onClose={() => setDialog(null)}
          onSubmit={async (values) => {
            const result = await run(
              `Could not save ${username}`,
              () =>
                client.call('user.edit', {
                  username,
                  newusername: values.username,
                  newemail: values.email,
                  // Left out when empty: the daemon then keeps the current password.
                  newpassword: values.password === '' ? undefined : values.password,
                }),
              [queryKeys.users],
            );
            if (!result) return false;
            toast.success(`Saved ${result.user.username}`);
            if (result.user.username !== username) onRenamed(result.user.username);
            return true;
          }}
        />
      ) : null}
      {dialog === 'delete' ? (
        <ConfirmDialog
          title={`Delete the user “${username}”?`}
          confirmLabel="Delete user"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const done = await run(`Could not delete ${username}`, () => client.call('user.delete', { username }), [
              queryKeys.users,
              queryKeys.dash,
            ]);
            if (!done) return;
            toast.success(`Deleted the user ${username}`);
            onDeleted();
          }}
        >
          <p>
            The account <strong>{username}</strong> ({user.email}) is removed with all of its storage:
            {folderCount !== undefined ? ` ${plural(folderCount, 'folder')},` : ''} every file and every share link. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
