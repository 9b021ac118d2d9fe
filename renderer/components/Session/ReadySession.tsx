import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import i18next from 'i18next';
import { ApiError, NimbusClient, errorMessage, type Connection } from '../../api/client';
import { getBridge } from '../../api/bridge';
import { toastsLoadError } from '../../api/loadErrors';
import { KeyLinkPrompt } from '../KeyLinkPrompt/KeyLinkPrompt';
import type { SignInForm } from '../SignIn/SignIn';
import { SessionContext, type Me, type SessionApi } from './sessionContext';

// Messages are looked up when shown, so they are in the language of that moment.
const expiredKey = () => i18next.t('shell:session.expiredKey');
const expiredSession = () => i18next.t('shell:session.expiredSession');

interface ReadySessionProps {
  connection: Connection;
  mode: 'desktop' | 'browser';
  auth: 'key' | 'session';
  me: Me;
  /** A key from the URL fragment the person has not chosen yet (browserStart.ts): they are asked. */
  offeredKey: string | null;
  onOfferDone: () => void;
  /** The current identity has ended: the page becomes the offered key's. */
  onSwitched: (key: string, me: Me) => void;
  signOut: (message: string | null, form: SignInForm) => void;
  toastError: (title: string, detail?: string) => void;
  children: ReactNode;
}

/** One identity's page: its client, its query cache (a new one per identity), and the prompt for a key from a link. */
export function ReadySession(props: ReadySessionProps) {
  const { connection, mode, auth, me, offeredKey, onOfferDone, onSwitched, signOut, toastError } = props;
  const bridge = getBridge();
  const form: SignInForm = auth === 'key' ? 'key' : 'password';
  // After a switch, a late 401 from this identity's requests (its session just ended) must not sign the next one out.
  const ended = useRef(false);
  useEffect(() => {
    ended.current = false;
    return () => {
      ended.current = true;
    };
  }, []);
  const onUnauthorized = useCallback(() => {
    if (mode === 'browser' && !ended.current) signOut(auth === 'key' ? expiredKey() : expiredSession(), form);
  }, [mode, auth, form, signOut]);
  const client = useMemo(() => new NimbusClient(connection, onUnauthorized), [connection, onUnauthorized]);
  // The server deletes a session and clears its cookie; a key only has to be forgotten (by the caller).
  const endCurrent = useCallback(async () => {
    if (auth === 'session') await new NimbusClient(connection).call('auth.logout').catch(() => undefined);
  }, [auth, connection]);
  // Ended before auth.logout is sent: the daemon drops the session before its answer arrives, and
  // a call still under way then answers 401. Taken for an ended session, that 401 would open the
  // sign-in page early, saying so, and the sign-out's own page would then replace whatever form
  // the person had opened on it.
  const endSession = useCallback(() => {
    ended.current = true;
    void endCurrent().then(() => signOut(null, form));
  }, [endCurrent, form, signOut]);
  // Signed out first, so the two identities never share the page (nor the cookie a key's requests would carry).
  const switchTo = useCallback(
    async (key: string, next: Me) => {
      ended.current = true;
      await endCurrent();
      onSwitched(key, next);
    },
    [endCurrent, onSwitched],
  );
  const [queryClient] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({
          onError: (error, query) => {
            if (toastsLoadError(error, query.meta)) toastError(i18next.t('shell:loadDataFailed'), errorMessage(error));
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
      <QueryClientProvider client={queryClient}>
        {props.children}
        {offeredKey !== null ? <KeyLinkPrompt key={offeredKey} offeredKey={offeredKey} onStay={onOfferDone} onSwitch={switchTo} /> : null}
      </QueryClientProvider>
    </SessionContext.Provider>
  );
}
