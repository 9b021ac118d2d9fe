import { StrictMode } from 'react';
import { Session } from '../Session/Session';
import { useSession } from '../Session/sessionContext';
import { ToastProvider } from '../Toasts/ToastProvider';
import { UserShell } from '../UserShell/UserShell';
import { UploadsProvider } from '../../upload/UploadsProvider';
import { useAccountAppearance } from '../../hooks/useAccountAppearance';
import { Shell } from './Shell';

/** Providers from the outside in: toasts, the daemon session (caller + query cache), uploads. */
export function App() {
  return (
    <StrictMode>
      <ToastProvider>
        <Session>
          <UploadsProvider>
            <Workspace />
          </UploadsProvider>
        </Session>
      </ToastProvider>
    </StrictMode>
  );
}

/** An admin gets the console (with their own storage when signed in as a user); anyone else their own storage; each in their own appearance. */
function Workspace() {
  const { me } = useSession();
  useAccountAppearance(me);
  if (!me.admin && me.user) return <UserShell username={me.user.username} />;
  return <Shell />;
}
