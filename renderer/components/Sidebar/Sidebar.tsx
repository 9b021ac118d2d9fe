import { LogOut, MailWarning, Plus, ShieldCheck } from 'lucide-react';
import type { Role, User } from '../../../shared/types';
import { quotaLevel } from '../../lib/format';
import { Avatar } from '../Avatar/Avatar';
import { QuotaBar, quotaText } from '../QuotaBar/QuotaBar';
import { RoleBadge } from '../RoleBadge/RoleBadge';
import './Sidebar.css';

interface SidebarProps {
  users: readonly User[] | undefined;
  roles: readonly Role[] | undefined;
  loading: boolean;
  selectedUser: string | null;
  rolesSelected: boolean;
  onSelectUser: (username: string) => void;
  onSelectRoles: () => void;
  onNewUser: () => void;
  /** Present in browser mode only. */
  onSignOut?: () => void;
}

function describe(user: User): string {
  const parts = [`Role ${user.role}`, quotaText(user.usage)];
  const level = quotaLevel(user.usage.usedBytes, user.usage.maxBytes, user.usage.overQuota);
  if (level === 'over') parts.push('over quota');
  else if (level === 'near') parts.push('almost full');
  if (!user.emailVerified) parts.push('e-mail not verified');
  return parts.join(', ');
}

export function Sidebar(props: SidebarProps) {
  const badgeOf = new Map(props.roles?.map((role) => [role.name, role.badge]));
  return (
    <aside className="sidebar">
      <div className="sidebar__brand">
        <img src="./nimbus.svg" alt="" width={26} height={26} />
        <span>Nimbus</span>
      </div>
      <nav className="sidebar__nav" aria-label="Users and settings">
        <div className="sidebar__section">
          <h2 className="sidebar__heading" id="sidebar-users">
            Users
          </h2>
          <button type="button" className="icon-button" aria-label="New user" title="New user" onClick={props.onNewUser}>
            <Plus size={16} aria-hidden="true" />
          </button>
        </div>
        <ul className="sidebar__list" aria-labelledby="sidebar-users">
          {props.loading && !props.users ? <li className="sidebar__empty">Loading users…</li> : null}
          {props.users?.length === 0 ? <li className="sidebar__empty">No users yet</li> : null}
          {props.users?.map((user) => {
            const current = user.username === props.selectedUser;
            const descId = `user-desc-${user.username}`;
            return (
              <li key={user.username}>
                <button
                  type="button"
                  className={`sidebar__user${current ? ' is-current' : ''}`}
                  aria-current={current ? 'page' : undefined}
                  aria-label={user.username}
                  aria-describedby={descId}
                  onClick={() => props.onSelectUser(user.username)}
                >
                  <Avatar name={user.username} size={30} />
                  <span className="sidebar__user-main">
                    <span className="sidebar__user-line">
                      <span className="sidebar__user-name">{user.username}</span>
                      <RoleBadge role={user.role} src={badgeOf.get(user.role)} size={14} />
                      {!user.emailVerified ? (
                        <MailWarning className="sidebar__unverified" size={14} aria-hidden="true">
                          <title>E-mail not verified</title>
                        </MailWarning>
                      ) : null}
                    </span>
                    <QuotaBar usage={user.usage} label={`Storage used by ${user.username}`} />
                  </span>
                  <span id={descId} hidden>
                    {describe(user)}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
        <div className="sidebar__section sidebar__section--manage">
          <h2 className="sidebar__heading">Manage</h2>
        </div>
        <button
          type="button"
          className={`sidebar__link${props.rolesSelected ? ' is-current' : ''}`}
          aria-current={props.rolesSelected ? 'page' : undefined}
          onClick={props.onSelectRoles}
        >
          <ShieldCheck size={17} aria-hidden="true" />
          Roles
          {props.roles ? <span className="sidebar__count">{props.roles.length}</span> : null}
        </button>
      </nav>
      {props.onSignOut ? (
        <div className="sidebar__footer">
          <button type="button" className="button button--ghost sidebar__signout" onClick={props.onSignOut}>
            <LogOut size={15} aria-hidden="true" />
            Sign out
          </button>
        </div>
      ) : null}
    </aside>
  );
}
