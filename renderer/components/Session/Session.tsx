import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ApiError, NimbusClient, errorMessage, type Connection } from '../../api/client';
import { getBridge } from '../../api/bridge';
import { forgetKey, initialBrowserKey, storeKey } from '../../api/connection';
import { useToast } from '../Toasts/toastContext';
import { SignIn } from '../SignIn/SignIn';
import { SessionContext, type SessionApi } from './sessionContext';

type State =
  | { phase: 'starting' }
  | { phase: 'signed-out'; message: string | null }
  | { phase: 'ready'; connection: Connection; mode: 'desktop' | 'browser' };

const REJECTED = 'The daemon did not accept this API key.';
const EXPIRED = 'The daemon no longer accepts this API key. Sign in again.';

/** Checks a key against the daemon serving this page; resolves to an error message or null. */
export async function checkKey(baseUrl: string, apiKey: string): Promise<string | null> {
  try {
    await new NimbusClient({ baseUrl, apiKey }).call('dash.get');
    return null;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return REJECTED;
    return errorMessage(error);
  }
}

/** Finds the daemon and its key, shows the sign-in form when needed, and provides the client. */
export function Session({ children }: { children: ReactNode }) {
  const toast = useToast();
  const bridge = getBridge();
  const [state, setState] = useState<State>({ phase: 'starting' });
  const started = useRef(false);
  const origin = window.location.origin;

  const { clear: clearToasts } = toast;
  const signOut = useCallback(
    (message: string | null = null) => {
      forgetKey(window.sessionStorage);
      // Messages about the session that ended must not linger over the sign-in form.
      clearToasts();
      setState({ phase: 'signed-out', message });
    },
    [clearToasts],
  );

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (bridge) {
      bridge
        .getConnection()
        .then((connection) => setState({ phase: 'ready', connection, mode: 'desktop' }))
        .catch((error: unknown) => setState({ phase: 'signed-out', message: `Nimbus could not find its daemon: ${errorMessage(error)}` }));
      return;
    }
    const { key } = initialBrowserKey(window);
    if (!key) {
      setState({ phase: 'signed-out', message: null });
      return;
    }
    void checkKey(origin, key).then((problem) => {
      if (problem) {
        forgetKey(window.sessionStorage);
        setState({ phase: 'signed-out', message: problem });
      } else {
        storeKey(window.sessionStorage, key);
        setState({ phase: 'ready', connection: { baseUrl: origin, apiKey: key }, mode: 'browser' });
      }
    });
  }, [bridge, origin]);

  const onSignedIn = useCallback(
    (key: string) => {
      storeKey(window.sessionStorage, key);
      setState({ phase: 'ready', connection: { baseUrl: origin, apiKey: key }, mode: 'browser' });
    },
    [origin],
  );

  if (state.phase === 'starting') {
    return (
      <div className="splash" role="status">
        Connecting to Nimbus…
      </div>
    );
  }
  if (state.phase === 'signed-out') {
    return <SignIn message={state.message} verify={(key) => checkKey(origin, key)} onSignedIn={onSignedIn} />;
  }
  return (
    <ReadySession key={state.connection.apiKey} connection={state.connection} mode={state.mode} signOut={signOut} toastError={toast.error}>
      {children}
    </ReadySession>
  );
}

function ReadySession(props: {
  connection: Connection;
  mode: 'desktop' | 'browser';
  signOut: (message?: string | null) => void;
  toastError: (title: string, detail?: string) => void;
  children: ReactNode;
}) {
  const { connection, mode, signOut, toastError } = props;
  const bridge = getBridge();
  const onUnauthorized = useCallback(() => {
    if (mode === 'browser') signOut(EXPIRED);
  }, [mode, signOut]);
  const client = useMemo(() => new NimbusClient(connection, onUnauthorized), [connection, onUnauthorized]);
  const [queryClient] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({
          onError: (error) => {
            // 401 signs out; an unreachable daemon is shown by the status bar, not a toast per refetch.
            if (error instanceof ApiError && (error.status === 401 || error.code === 'unreachable')) return;
            toastError('Could not load data', errorMessage(error));
          },
        }),
        defaultOptions: {
          queries: { staleTime: 5_000, retry: (count, error) => !(error instanceof ApiError && error.status >= 400) && count < 2 },
          mutations: { retry: false },
        },
      }),
  );
  useEffect(() => () => queryClient.clear(), [queryClient]);
  const session = useMemo<SessionApi>(() => ({ client, mode, bridge, signOut: () => signOut(null) }), [client, mode, bridge, signOut]);
  return (
    <SessionContext.Provider value={session}>
      <QueryClientProvider client={queryClient}>{props.children}</QueryClientProvider>
    </SessionContext.Provider>
  );
}
