import { useCallback, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { User } from '../../../shared/types';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys';
import { useUser } from '../../hooks/queries';
import { useLiveEvents, type LiveState } from '../../hooks/useLiveEvents';
import { usePreventFileNavigation } from '../../hooks/usePreventFileNavigation';
import { useSendVerification } from '../../hooks/useSendVerification';
import { AccountNav, usePlaceLabel, type AccountPlace } from '../AccountNav/AccountNav';
import { ShellFrame } from '../App/ShellFrame';
import { Avatar } from '../Avatar/Avatar';
import { FileBrowser } from '../FileBrowser/FileBrowser';
import { useClient, useSession } from '../Session/sessionContext';
import { Settings } from '../Settings/Settings';
import { SidebarBrand, SignOutFooter } from '../Sidebar/Sidebar';
import { SharedByMe } from '../SharedByMe/SharedByMe';
import { StorageUsage } from '../StorageUsage/StorageUsage';
import { TrashView } from '../TrashView/TrashView';
import { UploadPanel } from '../UploadPanel/UploadPanel';
import { UserHeader } from '../UserHeader/UserHeader';
import '../Sidebar/Sidebar.css';
import './UserShell.css';

type View = { place: AccountPlace; folder: string | null; focusList?: boolean };

/** A signed-in user who is not an admin: their own storage, their shares, their trash and Settings; no user list, no roles. */
export function UserShell({ username }: { username: string }) {
  const { t } = useTranslation();
  const placeLabel = usePlaceLabel();
  const session = useSession();
  const live = useLiveEvents();
  const user = useUser(username);
  const [view, setView] = useState<View>({ place: 'files', folder: null });

  const openPlace = useCallback((place: AccountPlace) => setView({ place, folder: null }), []);
  const openFolder = useCallback((folder: string | null) => setView({ place: 'files', folder, focusList: true }), []);

  usePreventFileNavigation();

  let main;
  if (!user.data) {
    main = (
      <div className="shell__loading" role="status">
        {user.isError ? t('shell:loadAccountFailed') : t('common:loading')}
      </div>
    );
  } else if (view.place === 'settings') {
    main = <Settings user={user.data} live={live} />;
  } else if (view.place === 'shared') {
    main = <SharedByMe username={username} live={live} onOpenFolder={openFolder} />;
  } else if (view.place === 'trash') {
    main = <TrashView username={username} />;
  } else {
    main = <OwnStorage user={user.data} folder={view.folder} focusList={view.focusList === true} live={live} onOpenFolder={openFolder} />;
  }

  const sidebar = (
    <aside className="sidebar">
      <SidebarBrand />
      <nav className="sidebar__nav" aria-label={t('shell:nav.yourAccount')}>
        <div className="sidebar__whoami">
          <Avatar name={username} size={22} />
          <span>
            <Trans i18nKey="shell:signedInAs" values={{ name: username }} components={{ strong: <strong /> }} />
          </span>
        </div>
        <AccountNav current={view.place} onOpen={openPlace} />
        <div className="user-shell__usage">
          <StorageUsage username={username} />
        </div>
      </nav>
      {session.mode === 'browser' ? <SignOutFooter onSignOut={session.signOut} /> : null}
    </aside>
  );

  return (
    <ShellFrame className="user-shell" sidebar={sidebar} title={placeLabel(view.place)} viewKey={view.place}>
      {main}
      <UploadPanel />
    </ShellFrame>
  );
}

/** The user's header (quota, verification) over their files. */
export function OwnStorage(props: {
  user: User;
  folder: string | null;
  focusList: boolean;
  live: LiveState;
  onOpenFolder: (folder: string | null) => void;
}) {
  const { user } = props;
  const client = useClient();
  const sendVerification = useSendVerification();
  // A user may read their own role (for its badge); anything else of roles is the admin's.
  const role = useQuery({
    queryKey: queryKeys.role(user.role),
    queryFn: ({ signal }) => client.call('role.get', { name: user.role }, signal),
  });
  return (
    <div className="shell__user">
      <UserHeader user={user} roles={role.data ? [role.data] : []} onVerify={() => void sendVerification(user)} />
      <FileBrowser
        key={props.folder ?? ''}
        username={user.username}
        folder={props.folder}
        focusList={props.focusList}
        live={props.live}
        onOpenFolder={props.onOpenFolder}
      />
    </div>
  );
}
