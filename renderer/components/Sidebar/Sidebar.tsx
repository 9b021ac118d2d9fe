import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { LayoutDashboard, LogOut, Plus, Settings, ShieldCheck } from 'lucide-react';
import type { Role, User } from '../../../shared/types';
import { AccountNav, type AccountPlace } from '../AccountNav/AccountNav';
import { FolderTree } from './FolderTree';
import { UserList } from './UserList';
import './Sidebar.css';

interface SidebarProps {
  users: readonly User[] | undefined;
  roles: readonly Role[] | undefined;
  loading: boolean;
  selectedUser: string | null;
  rolesSelected: boolean;
  overviewSelected: boolean;
  /** Settings is open. */
  settingsSelected?: boolean;
  onSelectUser: (username: string) => void;
  onSelectRoles: () => void;
  onSelectOverview: () => void;
  /** Settings, linked under Manage when there is no `account` (the admin key); an account's own places have it otherwise. */
  onSelectSettings?: () => void;
  onNewUser: () => void;
  /** Present in browser mode only. */
  onSignOut?: () => void;
  /** An admin signed in as a user: their own places, on top. */
  account?: {
    current: AccountPlace | null;
    onOpen: (place: AccountPlace) => void;
    username: string;
    /** The admin's own folder open in the explorer (highlighted in their tree), else null. */
    folder: string | null;
    onOpenFolder: (folder: string) => void;
  };
}

/** The admin's places: Overview, Roles, the users (and Settings when signed in with the key). Memoised: opening a folder re-renders only the browser pane, so callbacks must be stable. */
export const Sidebar = memo(function Sidebar(props: SidebarProps) {
  const { t } = useTranslation();
  return (
    <aside className="sidebar">
      <SidebarBrand />
      <nav className="sidebar__nav" aria-label={t('shell:nav.usersAndSettings')}>
        {props.account ? (
          <>
            <div className="sidebar__section">
              <h2 className="sidebar__heading">{t('shell:nav.you')}</h2>
            </div>
            <AccountNav
              current={props.account.current}
              onOpen={props.account.onOpen}
              folderTree={<FolderTree username={props.account.username} open={props.account.folder} onOpen={props.account.onOpenFolder} />}
            />
          </>
        ) : null}
        <div className="sidebar__section">
          <h2 className="sidebar__heading">{t('shell:nav.manage')}</h2>
        </div>
        <button
          type="button"
          className={`sidebar__link${props.overviewSelected ? ' is-current' : ''}`}
          aria-current={props.overviewSelected ? 'page' : undefined}
          onClick={props.onSelectOverview}
        >
          <LayoutDashboard size={17} aria-hidden="true" />
          {t('shell:nav.overview')}
        </button>
        <button
          type="button"
          className={`sidebar__link${props.rolesSelected ? ' is-current' : ''}`}
          aria-current={props.rolesSelected ? 'page' : undefined}
          onClick={props.onSelectRoles}
        >
          <ShieldCheck size={17} aria-hidden="true" />
          {t('shell:nav.roles')}
          {props.roles ? <span className="sidebar__count">{props.roles.length}</span> : null}
        </button>
        {props.onSelectSettings && !props.account ? (
          <button
            type="button"
            className={`sidebar__link${props.settingsSelected ? ' is-current' : ''}`}
            aria-current={props.settingsSelected ? 'page' : undefined}
            onClick={props.onSelectSettings}
          >
            <Settings size={17} aria-hidden="true" />
            {t('shell:nav.settings')}
          </button>
        ) : null}
        <div className="sidebar__section">
          <h2 className="sidebar__heading" id="sidebar-users">
            {t('shell:nav.users')}
          </h2>
          <button
            type="button"
            className="icon-button"
            aria-label={t('shell:users.new')}
            title={t('shell:users.new')}
            onClick={props.onNewUser}
          >
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
      </nav>
      {props.onSignOut ? <SignOutFooter onSignOut={props.onSignOut} /> : null}
    </aside>
  );
});

/** The app's name and mark at the top of a sidebar. */
export function SidebarBrand() {
  return (
    <div className="sidebar__brand">
      <img src="/nimbus.svg" alt="" width={26} height={26} />
      <span>Nimbus</span>
    </div>
  );
}

/** "Sign out" at the foot of a sidebar (browser mode: the desktop app stays signed in). */
export function SignOutFooter({ onSignOut }: { onSignOut: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="sidebar__footer">
      <button type="button" className="button button--ghost sidebar__signout" onClick={onSignOut}>
        <LogOut size={15} aria-hidden="true" />
        {t('shell:signOut')}
      </button>
    </div>
  );
}
