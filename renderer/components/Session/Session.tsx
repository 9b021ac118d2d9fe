import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import i18next from 'i18next';
import { useTranslation } from 'react-i18next';
import { NimbusClient, errorMessage, type Connection } from '../../api/client';
import { getBridge } from '../../api/bridge';
import { forgetKey, storeKey, takeKeyFromFragment } from '../../api/connection';
import { useToast } from '../Toasts/toastContext';
import { ResetPage, RESET_PATH } from '../ResetPage/ResetPage';
import { SignIn, type SignedIn, type SignInForm } from '../SignIn/SignIn';
import { checkKey, signInWithKey, startBrowser, type BrowserStart } from './browserStart';
import { ReadySession } from './ReadySession';
import type { Me } from './sessionContext';

type State =
  | { phase: 'starting' }
  | { phase: 'signed-out'; message: string | null; form: SignInForm; goodNews?: string }
  | { phase: 'reset'; token: string }
  | { phase: 'ready'; connection: Connection; mode: 'desktop' | 'browser'; auth: 'key' | 'session'; me: Me };

/** The English of `shell:session.passwordResetDone`, for tests. */
export const PASSWORD_RESET_DONE = 'Your password is changed. Sign in with the new one.';
/** The Electron app acts as the machine's admin through the keychain key, as before accounts. */
const DESKTOP_ME: Me = { user: null, admin: true, canWrite: true };

/** The token of a password-reset link (`/reset?token=…`), or null on any other page. */
function resetToken(location: Location): string | null {
  if (location.pathname !== RESET_PATH) return null;
  return new URLSearchParams(location.search).get('token') ?? '';
}

/**
 * Finds the daemon and the caller: the Electron bridge's key, a key this tab holds, the session
 * cookie, or a key from the URL fragment (browserStart.ts: a fragment's key never replaces an
 * identity the page has; it is offered instead). Shows the sign-in and reset pages when needed,
 * and provides the client.
 */
export function Session({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const toast = useToast();
  const bridge = getBridge();
  const [state, setState] = useState<State>({ phase: 'starting' });
  const [offeredKey, setOfferedKey] = useState<string | null>(null);
  const started = useRef(false);
  const origin = window.location.origin;

  const { clear: clearToasts } = toast;
  const signOut = useCallback(
    (message: string | null, form: SignInForm) => {
      forgetKey(window.sessionStorage);
      // Signing out on purpose leaves the address of what was open: whoever signs in next starts
      // at the start page. An ended session keeps it, to go back there once signed in again.
      if (message === null) window.history.replaceState(null, '', '/');
      // Messages about the session that ended must not linger over the sign-in form.
      clearToasts();
      setOfferedKey(null);
      setState({ phase: 'signed-out', message, form });
    },
    [clearToasts],
  );

  const enter = useCallback(
    (start: BrowserStart) => {
      if (start.kind === 'signed-out') {
        // A key offered while the page was starting has no identity left to be weighed against.
        setOfferedKey(null);
        setState({ phase: 'signed-out', form: start.form, message: start.message });
        return;
      }
      const apiKey = start.kind === 'key' ? start.key : null;
      setState({ phase: 'ready', connection: { baseUrl: origin, apiKey }, mode: 'browser', auth: start.kind, me: start.me });
      if (start.offer !== null) setOfferedKey(start.offer);
    },
    [origin],
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
    void startBrowser(origin, window).then(enter);
  }, [bridge, origin, enter]);

  // A key put in the fragment of the open page (a link followed in this tab) leaves the address
  // bar at once, like one the page opened with: offered where the page has an identity.
  const phase = useRef(state.phase);
  useEffect(() => {
    phase.current = state.phase;
  }, [state.phase]);
  useEffect(() => {
    if (bridge) return;
    const onHashChange = () => {
      const key = takeKeyFromFragment(window.location, window.history);
      if (key === null || phase.current === 'reset') return;
      if (phase.current === 'signed-out') void signInWithKey(origin, window.sessionStorage, key).then(enter);
      else setOfferedKey(key);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, [bridge, origin, enter]);

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
  const onSwitched = useCallback(
    (key: string, me: Me) => {
      // The toasts were about the identity that ended.
      clearToasts();
      setOfferedKey(null);
      onSignedIn({ auth: 'key', key, me });
    },
    [clearToasts, onSignedIn],
  );
  const dropOffer = useCallback(() => setOfferedKey(null), []);

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
      offeredKey={state.mode === 'browser' ? offeredKey : null}
      onOfferDone={dropOffer}
      onSwitched={onSwitched}
      signOut={signOut}
      toastError={toast.error}
    >
      {children}
    </ReadySession>
  );
}
