import { memo } from 'react';
import { LogOut, Plus, ShieldCheck } from 'lucide-react';
import type { Role, User } from '../../../shared/types';
import { AccountNav, type AccountPlace } from '../AccountNav/AccountNav';
import { UserList } from './UserList';
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
  /** An admin signed in as a user: their own places, on top. */
  account?: { current: AccountPlace | null; onOpen: (place: AccountPlace) => void };
}

/** Users and settings. Memoised: opening a folder re-renders only the browser pane, so callbacks must be stable. */
export const Sidebar = memo(function Sidebar(props: SidebarProps) {
  return (
    <aside className="sidebar">
      <SidebarBrand />
      <nav className="sidebar__nav" aria-label="Users and settings">
        {props.account ? (
          <>
            <div className="sidebar__section">
              <h2 className="sidebar__heading">You</h2>
            </div>
            <AccountNav current={props.account.current} onOpen={props.account.onOpen} />
          </>
        ) : null}
        <div className="sidebar__section">
          <h2 className="sidebar__heading" id="sidebar-users">
            Users
          </h2>
          <button type="button" className="icon-button" aria-label="New user" title="New user" onClick={props.onNewUser}>
            <Plus size={16} aria-hidden="true" />
          </button>
        </div>
        <UserList
          users={props.users}
          roles={props.roles}
          loading={props.loading}
          selectedUser={props.selectedUser}
          onSelectUser={props.onSelectUser}
        />
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
      {props.onSignOut ? <SignOutFooter onSignOut={props.onSignOut} /> : null}
    </aside>
  );
});

/** The app's name and mark at the top of a sidebar. */
export function SidebarBrand() {
  return (
    <div className="sidebar__brand">
      <img src="./nimbus.svg" alt="" width={26} height={26} />
      <span>Nimbus</span>
    </div>
  );
}

/** "Sign out" at the foot of a sidebar (browser mode: the desktop app stays signed in). */
export function SignOutFooter({ onSignOut }: { onSignOut: () => void }) {
  return (
    <div className="sidebar__footer">
      <button type="button" className="button button--ghost sidebar__signout" onClick={onSignOut}>
        <LogOut size={15} aria-hidden="true" />
        Sign out
      </button>
    </div>
  );
}
