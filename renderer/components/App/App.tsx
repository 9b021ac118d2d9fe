import { StrictMode } from 'react';
import { Session } from '../Session/Session';
import { ToastProvider } from '../Toasts/ToastProvider';
import { UploadsProvider } from '../../upload/UploadsProvider';
import { Shell } from './Shell';

/** Providers from the outside in: toasts, the daemon session (key + query cache), uploads. */
export function App() {
  return (
    <StrictMode>
      <ToastProvider>
        <Session>
          <UploadsProvider>
            <Shell />
          </UploadsProvider>
        </Session>
      </ToastProvider>
    </StrictMode>
  );
}
