import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import i18next from 'i18next';
import { useTranslation } from 'react-i18next';
import { ApiError, NimbusClient, errorMessage, type Connection } from '../../api/client';
import { getBridge } from '../../api/bridge';
import { forgetKey, initialBrowserKey, storeKey } from '../../api/connection';
import { useToast } from '../Toasts/toastContext';
import { ResetPage, RESET_PATH } from '../ResetPage/ResetPage';
import { SignIn, type SignedIn, type SignInForm } from '../SignIn/SignIn';
import { SessionContext, type Me, type SessionApi } from './sessionContext';

type State =
  | { phase: 'starting' }
  | { phase: 'signed-out'; message: string | null; form: SignInForm; goodNews?: string }
  | { phase: 'reset'; token: string }
  | { phase: 'ready'; connection: Connection; mode: 'desktop' | 'browser'; auth: 'key' | 'session'; me: Me };

// Messages are looked up when shown, so they are in the language of that moment.
const rejected = () => i18next.t('shell:session.rejected');
const expiredKey = () => i18next.t('shell:session.expiredKey');
const expiredSession = () => i18next.t('shell:session.expiredSession');
/** The English of `shell:session.passwordResetDone`, for tests. */
export const PASSWORD_RESET_DONE = 'Your password is changed. Sign in with the new one.';
/** The Electron app acts as the machine's admin through the keychain key, as before accounts. */
const DESKTOP_ME: Me = { user: null, admin: true };

/** Checks a key against the daemon serving this page: who it signs in as, or an error message. */
export async function checkKey(baseUrl: string, apiKey: string): Promise<Me | string> {
  try {
    return await new NimbusClient({ baseUrl, apiKey }).call('auth.me');
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return rejected();
    return errorMessage(error);
  }
}

/** Whether this page's cookie is a live session: who it is, null when signed out, or an error message. */
async function checkCookie(baseUrl: string): Promise<Me | null | string> {
  try {
    return await new NimbusClient({ baseUrl, apiKey: null }).call('auth.me');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    return errorMessage(error);
  }
}

/** The token of a password-reset link (`/reset?token=…`), or null on any other page. */
function resetToken(location: Location): string | null {
  if (location.pathname !== RESET_PATH) return null;
  return new URLSearchParams(location.search).get('token') ?? '';
}

/**
 * Finds the daemon and the caller: the Electron bridge's key, a key from the URL fragment or
 * this tab, or the session cookie (`auth.me` decides). Shows the sign-in and reset pages when
 * needed, and provides the client.
 */
export function Session({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const toast = useToast();
  const bridge = getBridge();
  const [state, setState] = useState<State>({ phase: 'starting' });
  const started = useRef(false);
  const origin = window.location.origin;

  const { clear: clearToasts } = toast;
  const signOut = useCallback(
    (message: string | null, form: SignInForm) => {
      forgetKey(window.sessionStorage);
      // Messages about the session that ended must not linger over the sign-in form.
      clearToasts();
      setState({ phase: 'signed-out', message, form });
    },
    [clearToasts],
  );

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (bridge) {
      bridge
        .getConnection()
        .then((connection) => setState({ phase: 'ready', connection, mode: 'desktop', auth: 'key', me: DESKTOP_ME }))
        .catch((error: unknown) =>
          setState({ phase: 'signed-out', form: 'key', message: i18next.t('shell:session.noDaemon', { error: errorMessage(error) }) }),
        );
      return;
    }
    const token = resetToken(window.location);
    if (token !== null) {
      setState({ phase: 'reset', token });
      return;
    }
    const { key } = initialBrowserKey(window);
    if (key) {
      void checkKey(origin, key).then((me) => {
        if (typeof me === 'string') {
          forgetKey(window.sessionStorage);
          setState({ phase: 'signed-out', form: 'key', message: me });
        } else {
          storeKey(window.sessionStorage, key);
          setState({ phase: 'ready', connection: { baseUrl: origin, apiKey: key }, mode: 'browser', auth: 'key', me });
        }
      });
      return;
    }
    void checkCookie(origin).then((me) => {
      if (me === null || typeof me === 'string') setState({ phase: 'signed-out', form: 'password', message: me });
      else setState({ phase: 'ready', connection: { baseUrl: origin, apiKey: null }, mode: 'browser', auth: 'session', me });
    });
  }, [bridge, origin]);

  const onSignedIn = useCallback(
    (result: SignedIn) => {
      if (result.auth === 'key') storeKey(window.sessionStorage, result.key);
      setState({
        phase: 'ready',
        connection: { baseUrl: origin, apiKey: result.auth === 'key' ? result.key : null },
        mode: 'browser',
        auth: result.auth,
        me: result.me,
      });
    },
    [origin],
  );

  if (state.phase === 'starting') {
    return (
      <div className="splash" role="status">
        {t('shell:connecting')}
      </div>
    );
  }
  if (state.phase === 'reset') {
    return (
      <ResetPage
        client={new NimbusClient({ baseUrl: origin, apiKey: null })}
        token={state.token}
        onDone={(changed) => {
          window.history.replaceState(null, '', '/');
          setState({
            phase: 'signed-out',
            form: 'password',
            message: null,
            goodNews: changed ? t('shell:session.passwordResetDone') : undefined,
          });
        }}
      />
    );
  }
  if (state.phase === 'signed-out') {
    return (
      <SignIn
        key={`${state.form}:${state.message ?? ''}:${state.goodNews ?? ''}`}
        client={new NimbusClient({ baseUrl: origin, apiKey: null })}
        initialForm={state.form}
        message={state.message}
        goodNews={state.goodNews ?? null}
        verifyKey={(key) => checkKey(origin, key)}
        onSignedIn={onSignedIn}
      />
    );
  }
  return (
    <ReadySession
      key={state.connection.apiKey ?? `session:${state.me.user?.username ?? ''}`}
      connection={state.connection}
      mode={state.mode}
      auth={state.auth}
      me={state.me}
      signOut={signOut}
      toastError={toast.error}
    >
      {children}
    </ReadySession>
  );
}

function ReadySession(props: {
  connection: Connection;
  mode: 'desktop' | 'browser';
  auth: 'key' | 'session';
  me: Me;
  signOut: (message: string | null, form: SignInForm) => void;
  toastError: (title: string, detail?: string) => void;
  children: ReactNode;
}) {
  const { connection, mode, auth, me, signOut, toastError } = props;
  const bridge = getBridge();
  const form: SignInForm = auth === 'key' ? 'key' : 'password';
  const onUnauthorized = useCallback(() => {
    if (mode === 'browser') signOut(auth === 'key' ? expiredKey() : expiredSession(), form);
  }, [mode, auth, form, signOut]);
  const client = useMemo(() => new NimbusClient(connection, onUnauthorized), [connection, onUnauthorized]);
  const endSession = useCallback(() => {
    if (auth === 'key') {
      signOut(null, form);
      return;
    }
    // The server deletes the session and clears the cookie; the form shows whatever it answers.
    void new NimbusClient(connection)
      .call('auth.logout')
      .catch(() => undefined)
      .then(() => signOut(null, form));
  }, [auth, connection, form, signOut]);
  const [queryClient] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({
          onError: (error) => {
            // 401 signs out; an unreachable daemon is shown by the status bar, not a toast per refetch.
            if (error instanceof ApiError && (error.status === 401 || error.code === 'unreachable')) return;
            toastError(i18next.t('shell:loadDataFailed'), errorMessage(error));
          },
        }),
        defaultOptions: {
          queries: { staleTime: 5_000, retry: (count, error) => !(error instanceof ApiError && error.status >= 400) && count < 2 },
          mutations: { retry: false },
        },
      }),
  );
  useEffect(() => () => queryClient.clear(), [queryClient]);
  const session = useMemo<SessionApi>(
    () => ({ client, mode, auth, me, bridge, signOut: endSession }),
    [client, mode, auth, me, bridge, endSession],
  );
  return (
    <SessionContext.Provider value={session}>
      <QueryClientProvider client={queryClient}>{props.children}</QueryClientProvider>
    </SessionContext.Provider>
  );
}
