import { useMemo, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Lock, Pencil, Plus, ShieldCheck, Trash2 } from 'lucide-react';
import type { Role } from '../../../shared/types';
import { queryKeys } from '../../api/queryKeys';
import { useRoles, useUsers } from '../../hooks/queries';
import { useApiAction } from '../../hooks/useApiAction';
import type { LiveState } from '../../hooks/useLiveEvents';
import { formatQuotaMb } from '../../lib/format';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { Dialog } from '../Dialog/Dialog';
import { EmptyState } from '../EmptyState/EmptyState';
import { RoleBadge } from '../RoleBadge/RoleBadge';
import { RoleDialog } from '../RoleDialog/RoleDialog';
import { useClient } from '../Session/sessionContext';
import { ActionsHeader } from '../ActionsHeader/ActionsHeader';
import { StatusBar } from '../StatusBar/StatusBar';
import { useToast } from '../Toasts/toastContext';
import './RolesPage.css';

type DialogState = { kind: 'create' } | { kind: 'edit'; role: Role } | { kind: 'delete'; role: Role } | null;

/** Roles with their badge, quota and how many users have them. Built-in roles cannot be renamed or deleted. */
export function RolesPage({ live }: { live: LiveState }) {
  const { t } = useTranslation();
  const roles = useRoles();
  const users = useUsers();
  const client = useClient();
  const toast = useToast();
  const run = useApiAction();
  const [dialog, setDialog] = useState<DialogState>(null);
  const stale = [queryKeys.roles, queryKeys.users, queryKeys.dash];

  // One pass over the users per users response, not one per role per render.
  const usersByRole = useMemo(() => {
    const counts = new Map<string, number>();
    for (const user of users.data ?? []) counts.set(user.role, (counts.get(user.role) ?? 0) + 1);
    return counts;
  }, [users.data]);
  const countOf = (name: string) => usersByRole.get(name) ?? 0;
  const list = roles.data ?? [];

  return (
    <section className="admin-page roles" aria-labelledby="roles-title">
      <header className="admin-page__header roles__header">
        <div>
          <h1 id="roles-title">{t('admin:roles.title')}</h1>
          <p className="admin-page__lead">{t('admin:roles.lead')}</p>
        </div>
        <button type="button" className="button button--primary" onClick={() => setDialog({ kind: 'create' })}>
          <Plus size={16} aria-hidden="true" />
          {t('admin:roles.new')}
        </button>
      </header>
      <div className="roles__scroll">
        {roles.isPending ? (
          <div className="roles__loading" role="status">
            {t('admin:roles.loading')}
          </div>
        ) : list.length === 0 ? (
          <EmptyState icon={ShieldCheck} title={t('admin:roles.emptyTitle')}>
            {t('admin:roles.emptyText')}
          </EmptyState>
        ) : (
          <table className="roles__table">
            <thead>
              <tr>
                <th scope="col" className="roles__badge-col">
                  <span className="visually-hidden">{t('admin:roles.badge')}</span>
                </th>
                <th scope="col">{t('admin:roles.name')}</th>
                <th scope="col">{t('admin:roles.quota')}</th>
                <th scope="col">{t('admin:roles.users')}</th>
                <ActionsHeader label={t('admin:roles.actions')} />
              </tr>
            </thead>
            <tbody>
              {list.map((role) => (
                <tr key={role.name}>
                  <td className="roles__badge-col">
                    <RoleBadge role={role.name} src={role.badge} size={28} />
                  </td>
                  <th scope="row" className="roles__name">
                    {role.name}
                    {role.builtIn ? (
                      <span className="tag" title={t('admin:roles.builtInHint')}>
                        <Lock size={11} aria-hidden="true" />
                        {t('admin:roles.builtIn')}
                      </span>
                    ) : null}
                  </th>
                  <td className="roles__num">{formatQuotaMb(role.maxStorage)}</td>
                  <td className="roles__num">{t('admin:roles.userCount', { count: countOf(role.name) })}</td>
                  <td className="roles__actions">
                    <button
                      type="button"
                      className="icon-button"
                      aria-label={t('admin:roles.edit', { role: role.name })}
                      title={t('admin:roles.editShort')}
                      onClick={() => setDialog({ kind: 'edit', role })}
                    >
                      <Pencil size={16} aria-hidden="true" />
                    </button>
                    <button
                      type="button"
                      className="icon-button icon-button--danger"
                      aria-label={t('admin:roles.delete', { role: role.name })}
                      title={role.builtIn ? t('admin:roles.builtInNoDelete') : t('admin:roles.deleteShort')}
                      // Until the users are known, whether the role is in use is not.
                      disabled={role.builtIn || users.data === undefined}
                      onClick={() => setDialog({ kind: 'delete', role })}
                    >
                      <Trash2 size={16} aria-hidden="true" />
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <StatusBar summary={t('admin:roles.count', { count: list.length })} live={live} />
      {dialog?.kind === 'create' ? (
        <RoleDialog
          onClose={() => setDialog(null)}
          onSubmit={async (values) => {
            const result = await run(
              t('admin:roles.createFailed', { role: values.name }),
              () => client.call('role.create', { ...values }),
              stale,
            );
            if (result) toast.success(t('admin:roles.created', { role: values.name }));
            return result !== undefined;
          }}
        />
      ) : null}
      {dialog?.kind === 'edit' ? (
        <RoleDialog
          role={dialog.role}
          onClose={() => setDialog(null)}
          onSubmit={async (values) => {
            const name = dialog.role.name;
            const result = await run(
              t('admin:roles.saveFailed', { role: name }),
              () => client.call('role.edit', { name, newname: values.name, maxStorage: values.maxStorage, badge: values.badge }),
              stale,
            );
            if (result) toast.success(t('admin:roles.saved', { role: values.name }));
            return result !== undefined;
          }}
        />
      ) : null}
      {dialog?.kind === 'delete' && countOf(dialog.role.name) > 0 ? (
        // Deleting a role that users still have fails: say so instead of offering it.
        <Dialog
          title={t('admin:roles.inUseTitle', { role: dialog.role.name })}
          onClose={() => setDialog(null)}
          initialFocus="[data-close]"
          footer={
            <button type="button" className="button button--primary" data-close onClick={() => setDialog(null)}>
              {t('common:close')}
            </button>
          }
        >
          <p>
            <Trans
              i18nKey="admin:roles.inUseText"
              count={countOf(dialog.role.name)}
              values={{ role: dialog.role.name }}
              components={{ strong: <strong /> }}
            />
          </p>
        </Dialog>
      ) : null}
      {dialog?.kind === 'delete' && countOf(dialog.role.name) === 0 ? (
        <ConfirmDialog
          title={t('admin:roles.deleteTitle', { role: dialog.role.name })}
          confirmLabel={t('admin:roles.deleteConfirm')}
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const name = dialog.role.name;
            const result = await run(t('admin:roles.deleteFailed', { role: name }), () => client.call('role.delete', { name }), stale);
            if (result) toast.success(t('admin:roles.deleted', { role: name }));
          }}
        >
          <p>
            <Trans
              i18nKey="admin:roles.deleteText"
              values={{ role: dialog.role.name, quota: formatQuotaMb(dialog.role.maxStorage) }}
              components={{ strong: <strong /> }}
            />
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
