import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { UserPlus } from 'lucide-react';
import { queryKeys } from '../../api/queryKeys';
import { useFolders, useRoles, useUsers } from '../../hooks/queries';
import { useApiAction } from '../../hooks/useApiAction';
import { useLiveEvents } from '../../hooks/useLiveEvents';
import { useAppRoute } from '../../hooks/useAppRoute';
import { usePreventFileNavigation } from '../../hooks/usePreventFileNavigation';
import { placeOf, storageRoute } from '../../lib/places';
import { useClient, useSession } from '../Session/sessionContext';
import { AdminOverview } from '../AdminOverview/AdminOverview';
import { EmptyState } from '../EmptyState/EmptyState';
import { FileBrowser } from '../FileBrowser/FileBrowser';
import { usePlaceLabel } from '../AccountNav/AccountNav';
import { RolesPage } from '../RolesPage/RolesPage';
import { Settings } from '../Settings/Settings';
import { SharedByMe } from '../SharedByMe/SharedByMe';
import { Sidebar } from '../Sidebar/Sidebar';
import { StatusBar } from '../StatusBar/StatusBar';
import { useToast } from '../Toasts/toastContext';
import { TrashView } from '../TrashView/TrashView';
import { UploadPanel } from '../UploadPanel/UploadPanel';
import { UserDialog } from '../UserDialog/UserDialog';
import { UserSection } from '../UserSection/UserSection';
import { ShellFrame } from './ShellFrame';
import { useAccountPlaces } from './useAccountPlaces';
import { UserTabs } from './UserTabs';

/**
 * The admin's window: the Overview on start; a user's storage (files or trash) or the Roles
 * page beside the sidebar. An admin signed in as a user also has their own places (My files,
 * Shared by me, Trash, Settings) on top. Where it is lives in the URL (useAppRoute).
 */
export function Shell() {
  const { t } = useTranslation();
  const placeLabel = usePlaceLabel();
  const session = useSession();
  const client = useClient();
  const toast = useToast();
  const run = useApiAction();
  const live = useLiveEvents();
  const users = useUsers();
  const roles = useRoles();
  const self = session.me.user;
  const selfName = self?.username ?? null;
  const { route, focusList, navigate } = useAppRoute();
  const view = placeOf(route, selfName, true);
  const [creating, setCreating] = useState(false);

  const selected = view.kind === 'storage' ? view.username : null;
  // Built once per users response, so a render (opening a folder) does no work per user.
  const userByName = useMemo(() => new Map(users.data?.map((candidate) => [candidate.username, candidate])), [users.data]);
  const user = (selected !== null ? userByName.get(selected) : undefined) ?? null;
  const folders = useFolders(user?.username ?? null);

  // A user who disappeared (deleted, renamed elsewhere), or one a link names who does not exist, leaves the Overview in their place.
  useEffect(() => {
    if (selected === null || !users.data || userByName.has(selected)) return;
    navigate({ page: 'home' }, { replace: true });
  }, [users.data, userByName, selected, navigate]);

  usePreventFileNavigation();

  const openFolder = useCallback(
    (folder: string | null) => {
      if (selected !== null) navigate({ page: 'files', username: selected, folder }, { focusList: true });
    },
    [navigate, selected],
  );
  const onSearch = useCallback(
    (search: string) => {
      if (view.kind === 'storage')
        navigate(storageRoute(view.username, view.folder, search, selfName), { replace: view.search !== '' || search === '' });
    },
    [navigate, view, selfName],
  );
  // Stable, so the memoised Sidebar is not re-rendered when only the open folder changes.
  const openUser = useCallback((username: string) => navigate({ page: 'files', username, folder: null }), [navigate]);
  const openRoles = useCallback(() => navigate({ page: 'roles' }), [navigate]);
  const openOverview = useCallback(() => navigate({ page: 'home' }), [navigate]);
  const openSettings = useCallback(() => navigate({ page: 'settings' }), [navigate]);
  const { place, account } = useAccountPlaces(view, selfName, navigate);
  const selfRecord = selfName !== null ? userByName.get(selfName) : undefined;
  const startCreating = useCallback(() => setCreating(true), []);

  let main;
  // With no user yet, the Overview would chart nobody: the welcome below offers to create one.
  if (view.kind === 'overview' && users.data?.length !== 0) {
    main = <AdminOverview onOpenUser={openUser} />;
  } else if (view.kind === 'roles') {
    main = <RolesPage live={live} />;
  } else if (view.kind === 'trash' && selfName !== null) {
    main = <TrashView username={selfName} />;
  } else if (view.kind === 'settings' && (selfName === null || selfRecord)) {
    // Signed in with the key (no user), Settings has only the appearance.
    main = <Settings user={selfRecord ?? null} live={live} />;
  } else if (view.kind === 'shared' && selfName !== null) {
    main = (
      <SharedByMe username={selfName} live={live} onOpenFolder={(folder) => navigate({ page: 'files', username: selfName, folder })} />
    );
  } else if (user && view.kind === 'storage') {
    main = (
      <div className="shell__user">
        <UserSection
          user={user}
          roles={roles.data ?? []}
          folderCount={folders.data?.length}
          onRenamed={openUser}
          onDeleted={openOverview}
        />
        <UserTabs
          username={user.username}
          tab={view.tab}
          onChange={(tab) =>
            navigate(
              tab === 'trash' ? { page: 'trash', username: user.username } : { page: 'files', username: user.username, folder: null },
            )
          }
        />
        {view.tab === 'trash' ? (
          <div className="shell__user" role="tabpanel" id="user-tab-panel" aria-labelledby="user-tab-trash">
            <TrashView username={user.username} />
          </div>
        ) : (
          <div className="shell__user" role="tabpanel" id="user-tab-panel" aria-labelledby="user-tab-files">
            <FileBrowser
              key={`${user.username}/${view.folder ?? ''}`}
              username={user.username}
              folder={view.folder}
              focusList={focusList}
              search={view.search}
              onSearch={onSearch}
              live={live}
              onOpenFolder={openFolder}
            />
          </div>
        )}
      </div>
    );
  } else {
    main = (
      <div className="shell__user">
        {users.data?.length === 0 ? (
          <EmptyState
            icon={UserPlus}
            title={t('shell:welcome.title')}
            action={
              <button type="button" className="button button--primary" onClick={() => setCreating(true)}>
                {t('shell:welcome.create')}
              </button>
            }
          >
            {t('shell:welcome.text')}
          </EmptyState>
        ) : (
          <div className="shell__loading" role="status">
            {users.isError ? t('shell:loadUsersFailed') : t('common:loading')}
          </div>
        )}
        <StatusBar summary={users.data ? t('shell:users.count', { count: users.data.length }) : ''} live={live} />
      </div>
    );
  }

  const title =
    place !== null
      ? placeLabel(place)
      : view.kind === 'overview'
        ? t('shell:nav.overview')
        : view.kind === 'roles'
          ? t('shell:nav.roles')
          : (selected ?? t('shell:nav.users'));
  // Not the folder: moving between folders is the explorer's, which gives its list the focus itself;
  // but a folder opened from the sidebar's tree closes the phone's drawer.
  const viewKey = view.kind === 'storage' ? `user/${view.username}/${view.tab}` : view.kind;
  const drawerKey = view.kind === 'storage' ? `${viewKey}/${view.folder ?? ''}` : viewKey;

  const sidebar = (
    <Sidebar
      users={users.data}
      roles={roles.data}
      loading={users.isPending}
      selectedUser={selected}
      rolesSelected={view.kind === 'roles'}
      overviewSelected={view.kind === 'overview'}
      settingsSelected={view.kind === 'settings'}
      onSelectUser={openUser}
      onSelectRoles={openRoles}
      onSelectOverview={openOverview}
      onSelectSettings={openSettings}
      onNewUser={startCreating}
      onSignOut={session.mode === 'browser' ? session.signOut : undefined}
      account={account}
    />
  );

  return (
    <ShellFrame sidebar={sidebar} title={title} viewKey={viewKey} drawerKey={drawerKey}>
      {main}
      <UploadPanel />
      {creating ? (
        <UserDialog
          onClose={() => setCreating(false)}
          onSubmit={async (values) => {
            const result = await run(t('shell:createFailed', { name: values.username }), () => client.call('user.create', { ...values }), [
              queryKeys.users,
              queryKeys.dash,
            ]);
            if (!result) return false;
            toast.success(t('shell:created', { name: result.user.username }));
            navigate({ page: 'files', username: result.user.username, folder: null });
            return true;
          }}
        />
      ) : null}
    </ShellFrame>
  );
}
