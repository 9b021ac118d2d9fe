import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { Role, User } from '../../../shared/types';
import { queryKeys } from '../../api/queryKeys';
import { useApiAction } from '../../hooks/useApiAction';
import { useSendVerification } from '../../hooks/useSendVerification';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { useClient, useSession } from '../Session/sessionContext';
import { useToast } from '../Toasts/toastContext';
import { ADMIN_ROLE, PromoteDialog } from './PromoteDialog';
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
  const { t } = useTranslation();
  const client = useClient();
  const { me } = useSession();
  const toast = useToast();
  const run = useApiAction();
  const sendVerification = useSendVerification();
  const [dialog, setDialog] = useState<'edit' | 'delete' | 'promote' | null>(null);
  const username = user.username;

  // Making someone an admin hands them every account and every file: asked first, as a delete is.
  // Until confirmed nothing is sent, and the role list still shows the role the user has.
  function pickRole(name: string) {
    if (name === ADMIN_ROLE && user.role !== ADMIN_ROLE) setDialog('promote');
    else void changeRole(name);
  }

  async function changeRole(name: string) {
    const done = await run(t('admin:user.roleFailed', { user: username, role: name }), () => client.call('user.role', { username, name }), [
      queryKeys.users,
    ]);
    if (done) toast.success(t('admin:user.roleChanged', { user: username, role: name }));
  }

  return (
    <>
      <UserHeader
        user={user}
        roles={roles}
        onChangeRole={pickRole}
        onVerify={() => void sendVerification(user)}
        onEdit={() => setDialog('edit')}
        onDelete={() => setDialog('delete')}
        detailedUsage
      />
      {dialog === 'edit' ? (
        <UserDialog
          user={user}
          ownAccount={username === me.user?.username}
          onClose={() => setDialog(null)}
          onSubmit={async (values, currentPassword) => {
            const result = await run(
              t('admin:user.saveFailed', { user: username }),
              () =>
                client.call('user.edit', {
                  username,
                  newusername: values.username,
                  newemail: values.email,
                  // Left out when empty: the daemon then keeps the current password.
                  newpassword: values.password === '' ? undefined : values.password,
                  // One's own e-mail or password: the current password, which the daemon asks for.
                  password: currentPassword,
                }),
              [queryKeys.users],
            );
            if (!result) return false;
            toast.success(t('admin:user.saved', { user: result.user.username }));
            if (result.user.username !== username) onRenamed(result.user.username);
            return true;
          }}
        />
      ) : null}
      {dialog === 'promote' ? <PromoteDialog user={user} onConfirm={() => changeRole(ADMIN_ROLE)} onClose={() => setDialog(null)} /> : null}
      {dialog === 'delete' ? (
        <ConfirmDialog
          title={t('admin:user.deleteTitle', { user: username })}
          confirmLabel={t('admin:user.delete')}
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const done = await run(t('admin:user.deleteFailed', { user: username }), () => client.call('user.delete', { username }), [
              queryKeys.users,
              queryKeys.dash,
            ]);
            if (!done) return;
            toast.success(t('admin:user.deleted', { user: username }));
            onDeleted();
          }}
        >
          <p>
            {folderCount !== undefined ? (
              <Trans
                i18nKey="admin:user.deleteTextFolders"
                count={folderCount}
                values={{ user: username, email: user.email }}
                components={{ strong: <strong /> }}
              />
            ) : (
              <Trans i18nKey="admin:user.deleteText" values={{ user: username, email: user.email }} components={{ strong: <strong /> }} />
            )}
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
