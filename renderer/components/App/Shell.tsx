import { useCallback, useEffect, useMemo, useState } from 'react';
import { UserPlus } from 'lucide-react';
import { queryKeys } from '../../api/queryKeys';
import { useFolders, useRoles, useUsers } from '../../hooks/queries';
import { useApiAction } from '../../hooks/useApiAction';
import { useLiveEvents } from '../../hooks/useLiveEvents';
import { usePreventFileNavigation } from '../../hooks/usePreventFileNavigation';
import { useClient, useSession } from '../Session/sessionContext';
import { EmptyState } from '../EmptyState/EmptyState';
import { FileBrowser } from '../FileBrowser/FileBrowser';
import { type AccountPlace } from '../AccountNav/AccountNav';
import { RolesPage } from '../RolesPage/RolesPage';
import { Settings } from '../Settings/Settings';
import { SharedByMe } from '../SharedByMe/SharedByMe';
import { Sidebar } from '../Sidebar/Sidebar';
import { StatusBar } from '../StatusBar/StatusBar';
import { useToast } from '../Toasts/toastContext';
import { UploadPanel } from '../UploadPanel/UploadPanel';
import { UserDialog } from '../UserDialog/UserDialog';
import { UserSection } from '../UserSection/UserSection';
import './Shell.css';

/** `focusList`: the view was reached by moving between folders, so the file list takes the keyboard focus. */
type View =
  | { kind: 'user'; username: string | null; folder: string | null; focusList?: boolean }
  | { kind: 'roles' }
  | { kind: 'shared' }
  | { kind: 'settings' };

/**
 * The admin's window: sidebar on the left, the open user's storage or the Roles page on the
 * right. An admin signed in as a user also has their own places (My files, Shared by me,
 * Settings) on top.
 */
export function Shell() {
  const session = useSession();
  const client = useClient();
  const toast = useToast();
  const run = useApiAction();
  const live = useLiveEvents();
  const users = useUsers();
  const roles = useRoles();
  const self = session.me.user;
  const [view, setView] = useState<View>({ kind: 'user', username: self?.username ?? null, folder: null });
  const [creating, setCreating] = useState(false);

  const selected = view.kind === 'user' ? view.username : null;
  // Built once per users response, so a render (opening a folder) does no work per user.
  const userByName = useMemo(() => new Map(users.data?.map((candidate) => [candidate.username, candidate])), [users.data]);
  const user = (selected !== null ? userByName.get(selected) : undefined) ?? null;
  const folders = useFolders(user?.username ?? null);

  // Open the first user on start, and move off a user who disappeared.
  useEffect(() => {
    if (view.kind !== 'user' || !users.data) return;
    if (view.username !== null && userByName.has(view.username)) return;
    const fallback = users.data[0]?.username ?? null;
    if (fallback !== view.username) setView({ kind: 'user', username: fallback, folder: null });
  }, [users.data, userByName, view]);

  usePreventFileNavigation();

  const openFolder = useCallback((folder: string | null) => {
    setView((current) => (current.kind === 'user' ? { ...current, folder, focusList: true } : current));
  }, []);
  // Stable, so the memoised Sidebar is not re-rendered when only the open folder changes.
  const openUser = useCallback((username: string) => setView({ kind: 'user', username, folder: null }), []);
  const openRoles = useCallback(() => setView({ kind: 'roles' }), []);
  const selfName = self?.username ?? null;
  const place: AccountPlace | null =
    view.kind === 'shared' || view.kind === 'settings' ? view.kind : view.kind === 'user' && view.username === selfName ? 'files' : null;
  const openPlace = useCallback(
    (next: AccountPlace) => setView(next === 'files' ? { kind: 'user', username: selfName, folder: null } : { kind: next }),
    [selfName],
  );
  const account = useMemo(() => (selfName === null ? undefined : { current: place, onOpen: openPlace }), [selfName, place, openPlace]);
  const selfRecord = selfName !== null ? userByName.get(selfName) : undefined;
  const startCreating = useCallback(() => setCreating(true), []);

  let main;
  if (view.kind === 'roles') {
    main = <RolesPage live={live} />;
  } else if (view.kind === 'settings' && selfRecord) {
    main = <Settings user={selfRecord} live={live} />;
  } else if (view.kind === 'shared' && selfName !== null) {
    main = <SharedByMe username={selfName} live={live} onOpenFolder={(folder) => setView({ kind: 'user', username: selfName, folder })} />;
  } else if (user && view.kind === 'user') {
    main = (
      <div className="shell__user">
        <UserSection
          user={user}
          roles={roles.data ?? []}
          folderCount={folders.data?.length}
          onRenamed={openUser}
          onDeleted={() => setView({ kind: 'user', username: null, folder: null })}
        />
        <FileBrowser
          key={`${user.username}/${view.folder ?? ''}`}
          username={user.username}
          folder={view.folder}
          focusList={view.focusList === true}
          live={live}
          onOpenFolder={openFolder}
        />
      </div>
    );
  } else {
    main = (
      <div className="shell__user">
        {users.data?.length === 0 ? (
          <EmptyState
            icon={UserPlus}
            title="Welcome to Nimbus"
            action={
              <button type="button" className="button button--primary" onClick={() => setCreating(true)}>
                Create a user
              </button>
            }
          >
            Each user has their own storage, folders and share links. Create the first one to start.
          </EmptyState>
        ) : (
          <div className="shell__loading" role="status">
            {users.isError ? 'Could not load users.' : 'Loading…'}
          </div>
        )}
        <StatusBar summary={users.data ? `${users.data.length} users` : ''} live={live} />
      </div>
    );
  }

  return (
    <div className="shell">
      <Sidebar
        users={users.data}
        roles={roles.data}
        loading={users.isPending}
        selectedUser={selected}
        rolesSelected={view.kind === 'roles'}
        onSelectUser={openUser}
        onSelectRoles={openRoles}
        onNewUser={startCreating}
        onSignOut={session.mode === 'browser' ? session.signOut : undefined}
        account={account}
      />
      <main className="shell__main">{main}</main>
      <UploadPanel />
      {creating ? (
        <UserDialog
          onClose={() => setCreating(false)}
          onSubmit={async (values) => {
            const result = await run(`Could not create ${values.username}`, () => client.call('user.create', { ...values }), [
              queryKeys.users,
              queryKeys.dash,
            ]);
            if (!result) return false;
            toast.success(`Created the user ${result.user.username}`);
            setView({ kind: 'user', username: result.user.username, folder: null });
            return true;
          }}
        />
      ) : null}
    </div>
  );
}
