import { useCallback } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { User } from '../../../shared/types';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys';
import { useUser } from '../../hooks/queries';
import { useLiveEvents, type LiveState } from '../../hooks/useLiveEvents';
import { useAppRoute } from '../../hooks/useAppRoute';
import { usePreventFileNavigation } from '../../hooks/usePreventFileNavigation';
import { placeOf, placeRoute, storageRoute } from '../../lib/places';
import { useSendVerification } from '../../hooks/useSendVerification';
import { AccountNav, usePlaceLabel, type AccountPlace } from '../AccountNav/AccountNav';
import { ShellFrame } from '../App/ShellFrame';
import { Avatar } from '../Avatar/Avatar';
import { FileBrowser } from '../FileBrowser/FileBrowser';
import { useClient, useSession } from '../Session/sessionContext';
import { Settings } from '../Settings/Settings';
import { FolderTree } from '../Sidebar/FolderTree';
import { SidebarBrand, SignOutFooter } from '../Sidebar/Sidebar';
import { SharedByMe } from '../SharedByMe/SharedByMe';
import { StorageUsage } from '../StorageUsage/StorageUsage';
import { TrashView } from '../TrashView/TrashView';
import { UploadPanel } from '../UploadPanel/UploadPanel';
import { UserHeader } from '../UserHeader/UserHeader';
import '../Sidebar/Sidebar.css';
import './UserShell.css';

/** A signed-in user who is not an admin: their own storage, their shares, their trash and Settings; no user list, no roles. */
export function UserShell({ username }: { username: string }) {
  const { t } = useTranslation();
  const placeLabel = usePlaceLabel();
  const session = useSession();
  const live = useLiveEvents();
  const user = useUser(username);
  const { route, focusList, navigate } = useAppRoute();
  const view = placeOf(route, username, false);
  const place: AccountPlace = view.kind === 'storage' ? view.tab : view.kind === 'overview' || view.kind === 'roles' ? 'files' : view.kind;
  // Another user's name in the address gets what the API gives: the explorer's forbidden state, never their files.
  const storageOwner = view.kind === 'storage' ? view.username : username;
  const folder = view.kind === 'storage' ? view.folder : null;

  const openPlace = useCallback((next: AccountPlace) => navigate(placeRoute(next, username)), [navigate, username]);
  const openFolder = useCallback(
    (next: string | null) => navigate({ page: 'files', username: storageOwner, folder: next }, { focusList: true }),
    [navigate, storageOwner],
  );
  const openOwnFolder = useCallback((next: string) => navigate({ page: 'files', username, folder: next }), [navigate, username]);
  const search = view.kind === 'storage' ? view.search : '';
  const onSearch = useCallback(
    (query: string) => navigate(storageRoute(storageOwner, folder, query, username), { replace: search !== '' || query === '' }),
    [navigate, storageOwner, folder, username, search],
  );

  usePreventFileNavigation();

  let main;
  if (!user.data) {
    main = (
      <div className="shell__loading" role="status">
        {user.isError ? t('shell:loadAccountFailed') : t('common:loading')}
      </div>
    );
  } else if (place === 'settings') {
    main = <Settings user={user.data} live={live} />;
  } else if (place === 'shared') {
    main = <SharedByMe username={username} live={live} onOpenFolder={openFolder} />;
  } else if (place === 'trash') {
    main = <TrashView username={storageOwner} />;
  } else {
    main = (
      <OwnStorage
        user={user.data}
        owner={storageOwner}
        folder={folder}
        focusList={focusList}
        search={search}
        onSearch={onSearch}
        live={live}
        onOpenFolder={openFolder}
      />
    );
  }

  // A folder opened from the sidebar's tree closes the phone's drawer; its focus is the explorer's (it gives its list the focus).
  const drawerKey = place === 'files' ? `files/${storageOwner}/${folder ?? ''}` : place;
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
        <AccountNav
          current={place}
          onOpen={openPlace}
          folderTree={
            <FolderTree username={username} open={place === 'files' && storageOwner === username ? folder : null} onOpen={openOwnFolder} />
          }
        />
        <div className="user-shell__usage">
          <StorageUsage username={username} />
        </div>
      </nav>
      {session.mode === 'browser' ? <SignOutFooter onSignOut={session.signOut} /> : null}
    </aside>
  );

  return (
    <ShellFrame className="user-shell" sidebar={sidebar} title={placeLabel(place)} viewKey={place} drawerKey={drawerKey}>
      {main}
      <UploadPanel />
    </ShellFrame>
  );
}

/** The user's header (quota, verification) over their files (or over `owner`'s, which the API refuses them). */
export function OwnStorage(props: {
  user: User;
  owner: string;
  folder: string | null;
  focusList: boolean;
  search: string;
  onSearch: (query: string) => void;
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
      {props.owner === user.username ? (
        <UserHeader user={user} roles={role.data ? [role.data] : []} onVerify={() => void sendVerification(user)} />
      ) : null}
      <FileBrowser
        key={`${props.owner}/${props.folder ?? ''}`}
        username={props.owner}
        folder={props.folder}
        focusList={props.focusList}
        search={props.search}
        onSearch={props.onSearch}
        live={props.live}
        onOpenFolder={props.onOpenFolder}
      />
    </div>
  );
}
