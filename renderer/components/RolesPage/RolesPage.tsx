import { useMemo, useState } from 'react';
import { Lock, Pencil, Plus, ShieldCheck, Trash2 } from 'lucide-react';
import type { Role } from '../../../shared/types';
import { queryKeys } from '../../api/queryKeys';
import { useRoles, useUsers } from '../../hooks/queries';
import { useApiAction } from '../../hooks/useApiAction';
import type { LiveState } from '../../hooks/useLiveEvents';
import { formatQuotaMb, plural } from '../../lib/format';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { Dialog } from '../Dialog/Dialog';
import { EmptyState } from '../EmptyState/EmptyState';
import { RoleBadge } from '../RoleBadge/RoleBadge';
import { RoleDialog } from '../RoleDialog/RoleDialog';
import { useClient } from '../Session/sessionContext';
import { StatusBar } from '../StatusBar/StatusBar';
import { useToast } from '../Toasts/toastContext';
import './RolesPage.css';

type DialogState = { kind: 'create' } | { kind: 'edit'; role: Role } | { kind: 'delete'; role: Role } | null;

/** Roles with their badge, quota and how many users have them. Built-in roles cannot be renamed or deleted. */
export function RolesPage({ live }: { live: LiveState }) {
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
    <section className="roles" aria-labelledby="roles-title">
      <header className="roles__header">
        <div>
          <h1 id="roles-title">Roles</h1>
          <p className="roles__lead">A role sets how much a user may store and the badge shown beside their name.</p>
        </div>
        <button type="button" className="button button--primary" onClick={() => setDialog({ kind: 'create' })}>
          <Plus size={16} aria-hidden="true" />
          New role
        </button>
      </header>
      <div className="roles__scroll">
        {roles.isPending ? (
          <div className="roles__loading" role="status">
            Loading roles…
          </div>
        ) : list.length === 0 ? (
          <EmptyState icon={ShieldCheck} title="No roles">
            Create a role to give users a quota and a badge.
          </EmptyState>
        ) : (
          <table className="roles__table">
            <thead>
              <tr>
                <th scope="col" className="roles__badge-col">
                  <span className="visually-hidden">Badge</span>
                </th>
                <th scope="col">Name</th>
                <th scope="col">Quota</th>
                <th scope="col">Users</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
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
                      <span className="tag" title="Built-in roles cannot be renamed or deleted">
                        <Lock size={11} aria-hidden="true" />
                        Built-in
                      </span>
                    ) : null}
                  </th>
                  <td className="roles__num">{formatQuotaMb(role.maxStorage)}</td>
                  <td className="roles__num">{plural(countOf(role.name), 'user')}</td>
                  <td className="roles__actions">
                    <button
                      type="button"
                      className="icon-button"
                      aria-label={`Edit role ${role.name}`}
                      title="Edit"
                      onClick={() => setDialog({ kind: 'edit', role })}
                    >
                      <Pencil size={16} aria-hidden="true" />
                    </button>
                    <button
                      type="button"
                      className="icon-button icon-button--danger"
                      aria-label={`Delete role ${role.name}`}
                      title={role.builtIn ? 'Built-in roles cannot be deleted' : 'Delete'}
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
      <StatusBar summary={plural(list.length, 'role')} live={live} />
      {dialog?.kind === 'create' ? (
        <RoleDialog
          onClose={() => setDialog(null)}
          onSubmit={async (values) => {
            const result = await run(`Could not create the role ${values.name}`, () => client.call('role.create', { ...values }), stale);
            if (result) toast.success(`Created the role “${values.name}”`);
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
              `Could not save the role ${name}`,
              () => client.call('role.edit', { name, newname: values.name, maxStorage: values.maxStorage, badge: values.badge }),
              stale,
            );
            if (result) toast.success(`Saved the role “${values.name}”`);
            return result !== undefined;
          }}
        />
      ) : null}
      {dialog?.kind === 'delete' && countOf(dialog.role.name) > 0 ? (
        // Deleting a role that users still have fails: say so instead of offering it.
        <Dialog
          title={`The role “${dialog.role.name}” is in use`}
          onClose={() => setDialog(null)}
          initialFocus="[data-close]"
          footer={
            <button type="button" className="button button--primary" data-close onClick={() => setDialog(null)}>
              Close
            </button>
          }
        >
          <p>
            <strong>{dialog.role.name}</strong> is given to {plural(countOf(dialog.role.name), 'user')}, so it cannot be deleted. Give{' '}
            {countOf(dialog.role.name) === 1 ? 'that user' : 'those users'} another role first; then it can be deleted.
          </p>
        </Dialog>
      ) : null}
      {dialog?.kind === 'delete' && countOf(dialog.role.name) === 0 ? (
        <ConfirmDialog
          title={`Delete the role “${dialog.role.name}”?`}
          confirmLabel="Delete role"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const name = dialog.role.name;
            const result = await run(`Could not delete the role ${name}`, () => client.call('role.delete', { name }), stale);
            if (result) toast.success(`Deleted the role “${name}”`);
          }}
        >
          <p>
            The role <strong>{dialog.role.name}</strong> ({formatQuotaMb(dialog.role.maxStorage)}) is removed. No user has it.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
